// SOQL relationships Salesforce answers in its own way: ActivityHistories and OpenActivities (views
// over tasks and events, reachable only from a parent), and polymorphic relationship fields.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { useSandbox, V } from './rest-helpers.ts';

const { call, reset } = useSandbox();
beforeEach(reset);

type Page = { totalSize: number; done: boolean; records: Array<Record<string, unknown>> };
const q = async (soql: string) => call('GET', `${V}/query?q=${encodeURIComponent(soql)}`);
const create = async (object: string, fields: Record<string, unknown>) => {
  const res = await call('POST', `${V}/sobjects/${object}`, fields);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return (res.body as { id: string }).id;
};

test('ActivityHistories and OpenActivities: closed tasks and past events, open tasks and coming events', async () => {
  const account = await create('Account', { Name: 'Activity Co' });
  const contact = await create('Contact', { LastName: 'Activist', AccountId: account });
  const done = await create('Task', {
    Subject: 'Call',
    Status: 'Completed',
    WhatId: account,
    WhoId: contact,
    ActivityDate: '2024-03-01',
  });
  const open = await create('Task', { Subject: 'Send Quote', Status: 'Not Started', WhatId: account });
  const past = await create('Event', {
    Subject: 'Meeting',
    WhatId: account,
    StartDateTime: '2024-02-01T10:00:00.000Z',
    EndDateTime: '2024-02-01T11:00:00.000Z',
    DurationInMinutes: 60,
  });
  const coming = await create('Event', {
    Subject: 'Meeting',
    WhatId: account,
    StartDateTime: '2099-02-01T10:00:00.000Z',
    EndDateTime: '2099-02-01T11:00:00.000Z',
    DurationInMinutes: 60,
  });
  // jsforce's own schema test sends this subquery (Account's describe lists both relationships).
  const res = await q(
    `SELECT Id, (SELECT Id, Subject, ActivityDate, IsClosed, IsTask, Owner.Id, Owner.Username, Owner.Email, What.Name FROM ActivityHistories), (SELECT Id, IsTask FROM OpenActivities) FROM Account WHERE Id = '${account}'`,
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const row = (res.body as Page).records[0] ?? {};
  const history = row.ActivityHistories as Page;
  assert.deepEqual(
    history.records.map((r) => [r.Id, r.IsTask, r.IsClosed]).sort(),
    [
      [done, true, true],
      [past, false, true],
    ].sort(),
  );
  const first = history.records.find((r) => r.Id === done) ?? {};
  assert.deepEqual(first.attributes, {
    type: 'ActivityHistory',
    url: `${V}/sobjects/ActivityHistory/${done}`,
  });
  assert.equal(first.ActivityDate, '2024-03-01');
  assert.equal((first.What as { Name: string }).Name, 'Activity Co');
  assert.equal(typeof (first.Owner as { Username: string }).Username, 'string');
  const openRows = (row.OpenActivities as Page).records;
  assert.deepEqual(
    openRows.map((r) => [r.Id, r.IsTask]).sort(),
    [
      [coming, false],
      [open, true],
    ].sort(),
  );

  // From the contact, the same views follow WhoId.
  const byWho = await q(`SELECT (SELECT Id FROM ActivityHistories) FROM Contact WHERE Id = '${contact}'`);
  const whoRows = ((byWho.body as Page).records[0]?.ActivityHistories as Page | undefined)?.records ?? [];
  assert.deepEqual(
    whoRows.map((r) => r.Id),
    [done],
  );

  // Not an object of its own: only a parent reaches it.
  const top = await q('SELECT Id FROM ActivityHistory');
  assert.equal(top.status, 400);
  assert.deepEqual(top.body, [
    {
      message: 'entity type ActivityHistory does not support query',
      errorCode: 'INVALID_TYPE_FOR_OPERATION',
    },
  ]);
});

test('polymorphic relationships: Who and What reach the Name object, Type names the record’s object', async () => {
  const account = await create('Account', { Name: 'Poly Co' });
  const lead = await create('Lead', { LastName: 'Prospect', Company: 'Poly Co', Title: 'Buyer' });
  const task = await create('Task', { Subject: 'Call', WhoId: lead, WhatId: account });
  const res = await q(
    `SELECT Who.Name, Who.Type, Who.Title, What.Name, What.Type, What.Title FROM Task WHERE Id = '${task}'`,
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const row = (res.body as Page).records[0] ?? {};
  const who = row.Who as Record<string, unknown>;
  const what = row.What as Record<string, unknown>;
  assert.deepEqual([who.Name, who.Type, who.Title], ['Prospect', 'Lead', 'Buyer']);
  // The Name object has a Title field; an Account has none, so it reads null.
  assert.deepEqual([what.Name, what.Type, what.Title], ['Poly Co', 'Account', null]);

  // Filtering by Type, as the SOQL guide's `WHERE What.Type IN (...)` does.
  const byType = await q(
    `SELECT Id FROM Task WHERE Who.Type = 'Lead' AND What.Type IN ('Account', 'Opportunity')`,
  );
  assert.deepEqual(
    (byType.body as Page).records.map((r) => r.Id),
    [task],
  );
  // A field the Name object lacks is refused, whatever the referenced record's object has.
  const bad = await q('SELECT What.Industry FROM Task');
  assert.equal(bad.status, 400);
  assert.equal((bad.body as Array<{ errorCode: string }>)[0]?.errorCode, 'INVALID_FIELD');
  assert.match((bad.body as Array<{ message: string }>)[0]?.message ?? '', /on entity 'Name'/);
  // TYPEOF still reaches the object's own fields.
  const typeOf = await q(
    `SELECT TYPEOF What WHEN Account THEN Industry, Name END FROM Task WHERE Id = '${task}'`,
  );
  assert.equal(typeOf.status, 200, JSON.stringify(typeOf.body));
});
