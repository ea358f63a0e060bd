import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { codes, useSandbox, V } from './rest-helpers.ts';

const { sf, call, reset } = useSandbox();
beforeEach(reset);

type Page = {
  totalSize: number;
  done: boolean;
  nextRecordsUrl?: string;
  records: Array<Record<string, unknown>>;
};
const q = async (soql: string, path = 'query', headers: Record<string, string> = {}) =>
  call('GET', `${V}/${path}?q=${encodeURIComponent(soql)}`, undefined, headers);

test('records in the real shape: attributes, canonical casing, parents nested two levels', async () => {
  const res = await q(
    "select name, account.name, ACCOUNT.OWNER.NAME from contact where account.external_id__c = 'ACC-0008' order by name",
  );
  assert.equal(res.status, 200);
  const page = res.body as Page;
  assert.equal(page.done, true);
  assert.ok(!('nextRecordsUrl' in page));
  assert.ok(page.totalSize > 0);
  const first = page.records[0] ?? {};
  assert.deepEqual(Object.keys(first), ['attributes', 'Name', 'Account']);
  assert.match(
    String((first.attributes as { url: string }).url),
    /^\/services\/data\/v62\.0\/sobjects\/Contact\/003\w{15}$/,
  );
  const account = first.Account as Record<string, unknown>;
  assert.deepEqual(Object.keys(account), ['attributes', 'Name', 'Owner']);
  assert.equal((account.attributes as { type: string }).type, 'Account');
  assert.deepEqual(Object.keys(account.Owner as object), ['attributes', 'Name']);
  const none = await q('SELECT Id, Account.Name FROM Contact WHERE AccountId = null LIMIT 1');
  assert.ok(
    (none.body as Page).records.every((r) => r.Account === null),
    'empty lookups are null',
  );
  // jsforce's Query says "when no records, done is omitted"; an answer recorded from a real org (v42.0) has
  // `{"totalSize":0,"done":true,"records":[]}`, so the sandbox keeps `done` (jsforce accepts both).
  const empty = await q("SELECT Id FROM Account WHERE Name = 'nobody'");
  assert.deepEqual(empty.body, { totalSize: 0, done: true, records: [] });
});

test('WHERE: AND/OR/NOT with parentheses, comparison operators, LIKE, IN, NOT IN, null, literals', async () => {
  const count = async (where: string, object = 'Account') =>
    ((await q(`SELECT Id FROM ${object} WHERE ${where}`)).body as Page).totalSize;
  const all = ((await q('SELECT Id FROM Account')).body as Page).totalSize;
  const banking = await count("Industry = 'Banking'");
  assert.ok(banking > 0);
  assert.equal(await count("Industry != 'Banking'"), all - banking);
  assert.equal(await count("NOT Industry = 'Banking'"), all - banking);
  assert.equal(await count("industry = 'BANKING'"), banking, 'string comparison is case-insensitive');
  const acme = await count("Name LIKE 'acme%'");
  assert.ok(acme > 0);
  assert.equal(
    await count("(Name LIKE 'Acme%' OR Industry = 'Banking') AND NumberOfEmployees >= 0"),
    await count("Name LIKE 'Acme%' OR Industry = 'Banking'"),
  );
  assert.equal(
    await count("Industry IN ('Banking', 'Retail')"),
    banking + (await count("Industry = 'Retail'")),
  );
  assert.equal(await count("Industry NOT IN ('Banking')"), all - banking);
  assert.equal(
    await count('NumberOfEmployees > 5000 AND NumberOfEmployees <= 10000'),
    (await count('NumberOfEmployees > 5000')) - (await count('NumberOfEmployees > 10000')),
  );
  assert.equal(await count('Phone = null'), 0);
  assert.equal(await count('Phone != null'), all);
  assert.equal(
    await count('CreatedDate >= 2024-01-01T00:00:00Z AND CreatedDate < 2025-01-01T00:00:00.000+0000'),
    all,
  );
  assert.equal(
    await count('CloseDate > 2024-01-01', 'Opportunity'),
    ((await q('SELECT Id FROM Opportunity')).body as Page).totalSize,
  );
  assert.equal(await count('IsClosed = false AND IsWon = true', 'Opportunity'), 0);
  assert.equal(await count('CreatedDate = LAST_N_DAYS:3'), 0, 'seed data is from 2024');
  assert.equal(await count('CreatedDate < TODAY'), all);
  assert.equal(
    await count("Id IN (SELECT AccountId FROM Contact WHERE Account.Industry = 'Banking')"),
    banking > 0 ? await count("Industry = 'Banking' AND Id IN (SELECT AccountId FROM Contact)") : 0,
  );
});

test('ORDER BY with NULLS FIRST/LAST, LIMIT, OFFSET, COUNT() and COUNT(Id)', async () => {
  const names = (
    (await q('SELECT Name FROM Account ORDER BY Name DESC LIMIT 5 OFFSET 2')).body as Page
  ).records.map((r) => String(r.Name));
  const allNames = ((await q('SELECT Name FROM Account ORDER BY Name DESC')).body as Page).records.map((r) =>
    String(r.Name),
  );
  assert.deepEqual(names, allNames.slice(2, 7));
  const opps = ((await q('SELECT CampaignId FROM Opportunity ORDER BY CampaignId NULLS LAST')).body as Page)
    .records;
  assert.notEqual(opps[0]?.CampaignId, null);
  assert.equal(opps.at(-1)?.CampaignId, null);
  const first = (
    (await q('SELECT CampaignId FROM Opportunity ORDER BY CampaignId ASC NULLS FIRST LIMIT 1')).body as Page
  ).records;
  assert.equal(first[0]?.CampaignId, null);
  const count = (await q('SELECT COUNT() FROM Lead')).body as Page;
  assert.equal(count.totalSize, 80);
  assert.deepEqual(count.records, []);
  const agg = (await q('SELECT COUNT(Id) FROM Lead')).body as Page;
  assert.deepEqual(agg.records, [{ attributes: { type: 'AggregateResult' }, expr0: 80 }]);
  const fieldsAll = (await q('SELECT FIELDS(ALL) FROM Account LIMIT 1')).body as Page;
  assert.ok('External_Id__c' in (fieldsAll.records[0] ?? {}));
});

test('paging: nextRecordsUrl with a locator, batchSize, queryMore until done', async () => {
  const res = await q('SELECT Id, Name FROM Contact ORDER BY Name', 'query', {
    'sforce-query-options': 'batchSize=200',
  });
  const first = res.body as Page;
  assert.equal(first.totalSize, 250);
  assert.equal(first.done, false);
  assert.equal(first.records.length, 200);
  assert.match(first.nextRecordsUrl ?? '', /^\/services\/data\/v62\.0\/query\/01g\w+-200$/);
  const second = (await call('GET', first.nextRecordsUrl ?? '')).body as Page;
  assert.equal(second.done, true);
  assert.equal(second.totalSize, 250);
  assert.equal(second.records.length, 50);
  assert.ok(!('nextRecordsUrl' in second));
  const ids = new Set([...first.records, ...second.records].map((r) => r.Id));
  assert.equal(ids.size, 250);
  // The default page is 2 000; batchSize below 200 is raised to 200.
  assert.equal(((await q('SELECT Id FROM Contact')).body as Page).records.length, 250);
  assert.equal(
    ((await q('SELECT Id FROM Contact', 'query', { 'sforce-query-options': 'batchSize=10' })).body as Page)
      .records.length,
    200,
  );
  const bad = await call('GET', `${V}/query/01gNOPE-200`);
  assert.equal(bad.status, 400);
  assert.deepEqual(codes(bad.body), ['INVALID_QUERY_LOCATOR']);
  assert.equal(sf().accounting.count('rest.queryMore') >= 1, true);
});

test('queryAll includes deleted records with IsDeleted = true; query does not', async () => {
  const created = await call('POST', `${V}/sobjects/Lead`, { LastName: 'Binned', Company: 'Recycle' });
  const id = (created.body as { id: string }).id;
  await call('DELETE', `${V}/sobjects/Lead/${id}`);
  const soql = `SELECT Id, IsDeleted FROM Lead WHERE Id = '${id}'`;
  assert.equal(((await q(soql)).body as Page).totalSize, 0);
  const all = (await q(soql, 'queryAll')).body as Page;
  assert.equal(all.totalSize, 1);
  assert.equal(all.records[0]?.IsDeleted, true);
});

test('errors: MALFORMED_QUERY, INVALID_FIELD, INVALID_TYPE with the real message layout', async () => {
  const field = await q('SELECT Id, Bogus__c FROM Account');
  assert.equal(field.status, 400);
  assert.deepEqual(field.body, [
    {
      message:
        "\nSELECT Id, Bogus__c FROM Account\n           ^\nERROR at Row:1:Column:12\nNo such column 'Bogus__c' on entity 'Account'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.",
      errorCode: 'INVALID_FIELD',
    },
  ]);
  const where = await q("SELECT Id FROM Account WHERE Nope = 'x'");
  assert.deepEqual(codes(where.body), ['INVALID_FIELD']);
  const rel = await q('SELECT Id, Nope.Name FROM Contact');
  assert.match(
    (rel.body as Array<{ message: string }>)[0]?.message ?? '',
    /Didn't understand relationship 'Nope' in field path/,
  );
  const type = await q('SELECT Id FROM Nope__c');
  assert.deepEqual(codes(type.body), ['INVALID_TYPE']);
  assert.match(
    (type.body as Array<{ message: string }>)[0]?.message ?? '',
    /\nERROR at Row:1:Column:16\nsObject type 'Nope__c' is not supported/,
  );
  const malformed = await q('SELECT Id FRM Account');
  assert.equal(malformed.status, 400);
  assert.deepEqual(codes(malformed.body), ['MALFORMED_QUERY']);
  assert.match(
    (malformed.body as Array<{ message: string }>)[0]?.message ?? '',
    /^\nSELECT Id FRM Account\n +\^\nERROR at Row:1:Column:\d+\nunexpected token: /,
  );
  const typed = await q("SELECT Id FROM Account WHERE NumberOfEmployees = '5'");
  assert.deepEqual(typed.body, [
    {
      message:
        "\nSELECT Id FROM Account WHERE NumberOfEmployees = '5'\n                                                 ^\nERROR at Row:1:Column:50\nvalue of filter criterion for field 'NumberOfEmployees' must be of type integer and should not be enclosed in quotes",
      errorCode: 'INVALID_QUERY_FILTER_OPERATOR',
    },
  ]);
  assert.deepEqual(codes((await q('SELECT Id FROM Account WHERE Name = 5')).body), [
    'INVALID_QUERY_FILTER_OPERATOR',
  ]);
  const badId = await q("SELECT Id FROM Account WHERE Id = '001bad'");
  assert.match((badId.body as Array<{ message: string }>)[0]?.message ?? '', /invalid ID field: 001bad$/);
  assert.deepEqual(codes((await q('SELECT FIELDS(ALL) FROM Account')).body), ['MALFORMED_QUERY']);
  assert.deepEqual(codes((await q('SELECT Id FROM Account LIMIT 5 OFFSET 2001')).body), [
    'NUMBER_OUTSIDE_VALID_RANGE',
  ]);
  const missing = await call('GET', `${V}/query`);
  assert.deepEqual(codes(missing.body), ['MALFORMED_QUERY']);
});

test("escaped quotes and backslashes in string literals match the stored value (O\\'Brien)", async () => {
  const created = await call('POST', `${V}/sobjects/Account`, { Name: "O'Brien \\ Sons" });
  assert.equal(created.status, 201);
  const res = await q("SELECT Id, Name FROM Account WHERE Name = 'O\\'Brien \\\\ Sons'");
  assert.equal(res.status, 200);
  const page = res.body as Page;
  assert.equal(page.totalSize, 1);
  assert.equal(page.records[0]?.['Name'], "O'Brien \\ Sons");
});

test('a child subquery over 200 rows sends 200 and pages the rest through its own nextRecordsUrl', async () => {
  const parent = await call('POST', `${V}/sobjects/Account`, { Name: 'Many Children Co' });
  const accountId = (parent.body as { id: string }).id;
  const kids = Array.from({ length: 230 }, (_, i) => ({
    attributes: { type: 'Contact' },
    LastName: `Child ${i}`,
    AccountId: accountId,
  }));
  for (const part of [kids.slice(0, 200), kids.slice(200)]) {
    assert.equal((await call('POST', `${V}/composite/sobjects`, { records: part })).status, 200);
  }
  const res = await q(`SELECT Id, (SELECT Id FROM Contacts) FROM Account WHERE Id = '${accountId}'`);
  const child = (res.body as Page).records[0]?.Contacts as Page;
  assert.deepEqual([child.totalSize, child.done, child.records.length], [230, false, 200]);
  assert.match(String(child.nextRecordsUrl), /^\/services\/data\/v62\.0\/query\/01g\w+-200$/);
  const rest = await call('GET', String(child.nextRecordsUrl));
  const more = rest.body as Page;
  assert.deepEqual([more.totalSize, more.done, more.records.length], [230, true, 30]);
  assert.ok(!('nextRecordsUrl' in more));
});
