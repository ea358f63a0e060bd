// Mirrors jsforce's integration file test/query-pagination.test.ts (3 tests): an account with more
// child rows than one subquery page holds, fetched with and without autoFetch.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { connectTo } from '../jsforce-helpers.ts';
import { useSandbox } from '../rest-helpers.ts';

const { sf } = useSandbox();
const conn = () => connectTo(sf());
const NAME = 'Lighthouse Supply (paged children)';
const N = 250;
type Children = { records: Array<Record<string, unknown>>; done: boolean; nextRecordsUrl?: string };

/** Inserts `rows` in collections of at most 200, as the API allows. */
async function insertInChunks(object: string, rows: Array<Record<string, unknown>>) {
  for (let i = 0; i < rows.length; i += 200) {
    const res = await conn()
      .sobject(object)
      .create(rows.slice(i, i + 200));
    assert.ok(res.every((r) => r.success));
  }
}

let accountId = '';

const subquery = (children: string) => `SELECT Id, Name, ${children} FROM Account WHERE Name = '${NAME}'`;

describe('subqueries larger than one page', () => {
  // Inside the suite: a top-level hook may start before useSandbox's own has finished.
  before(async () => {
    const made = await conn().sobject('Account').create({ Name: NAME });
    accountId = made.id as string;
    await insertInChunks(
      'Contact',
      Array.from({ length: N }, (_, i) => ({ LastName: `Keeper ${i + 1}`, AccountId: accountId })),
    );
  });

  test('autoFetch(true) gathers every child row and marks the child set done', async () => {
    const res = await conn().query(subquery('(SELECT Id, LastName FROM Contacts)')).autoFetch(true).execute();
    assert.equal(res.records.length, 1);
    const kids = res.records[0]?.Contacts as Children;
    assert.equal(kids.records.length, N);
    assert.equal(kids.done, true);
    assert.equal(kids.nextRecordsUrl, undefined);
    const names = new Set(kids.records.map((c) => c.LastName));
    for (let i = 1; i <= N; i++) assert.ok(names.has(`Keeper ${i}`), `Keeper ${i}`);
  });

  test('autoFetch(false) leaves the first child page with a next-page URL', async () => {
    const res = await conn()
      .query(subquery('(SELECT Id, LastName FROM Contacts)'))
      .autoFetch(false)
      .execute();
    const kids = res.records[0]?.Contacts as Children;
    assert.ok(kids.records.length <= 200, `${kids.records.length} child rows`);
    if (kids.records.length < N) {
      assert.equal(kids.done, false);
      assert.ok(kids.nextRecordsUrl);
    }
  });

  test('two paged subqueries (Contacts and Tasks) are both gathered', async () => {
    await insertInChunks(
      'Task',
      Array.from({ length: N }, (_, i) => ({ Subject: `Check lamp ${i + 1}`, WhatId: accountId })),
    );
    const res = await conn()
      .query(subquery('(SELECT Id, LastName FROM Contacts), (SELECT Id, Subject FROM Tasks)'))
      .autoFetch(true)
      .execute();
    const row = res.records[0] as Record<string, Children>;
    for (const rel of ['Contacts', 'Tasks']) {
      assert.equal(row[rel]?.records.length, N, rel);
      assert.equal(row[rel]?.done, true, rel);
      assert.equal(row[rel]?.nextRecordsUrl, undefined, rel);
    }
    const taskIds = (row.Tasks as Children).records.map((t) => String(t.Id));
    for (let i = 0; i < taskIds.length; i += 200) {
      await conn()
        .sobject('Task')
        .destroy(taskIds.slice(i, i + 200));
    }
  });
});
