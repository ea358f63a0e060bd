import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { connectTo } from './jsforce-helpers.ts';
import { useSandbox, V } from './rest-helpers.ts';

// Through jsforce 3.10.16 (package.json), plain HTTP for the blob URL.
const { sf, call, reset } = useSandbox();
beforeEach(reset);

const connect = () => connectTo(sf());

type Saved = { id: string; success: boolean };

test('the added standard objects are described, listed and queryable', async () => {
  const conn = connect();
  const global = await conn.describeGlobal();
  const names = global.sobjects.map((s) => s.name);
  for (const n of [
    'Task',
    'Event',
    'Note',
    'Attachment',
    'ContentVersion',
    'Product2',
    'Pricebook2',
    'PricebookEntry',
    'OpportunityLineItem',
  ]) {
    assert.ok(names.includes(n), `${n} in describeGlobal`);
  }
  const task = await conn.sobject('Task').describe();
  const who = task.fields.find((f) => f.name === 'WhoId');
  assert.deepEqual(
    [
      who?.referenceTo,
      who?.relationshipName,
      (who as { polymorphicForeignKey?: boolean } | undefined)?.polymorphicForeignKey,
    ],
    [['Contact', 'Lead'], 'Who', true],
  );
  const what = task.fields.find((f) => f.name === 'WhatId');
  assert.ok(
    what?.referenceTo?.includes('Opportunity') && what.referenceTo.includes('Account'),
    'What reaches accounts and opportunities',
  );
  const opp = await conn.sobject('Opportunity').describe();
  assert.ok(
    opp.childRelationships.some((r) => r.relationshipName === 'OpportunityLineItems'),
    'line items relationship',
  );
  assert.ok(
    opp.childRelationships.some((r) => r.relationshipName === 'Tasks' && r.field === 'WhatId'),
    'tasks relationship',
  );
  const pricebooks = await conn.query<{ Name: string; IsStandard: boolean }>(
    'SELECT Name, IsStandard FROM Pricebook2',
  );
  assert.deepEqual(
    pricebooks.records.map((r) => [r.Name, r.IsStandard]),
    [['Standard Price Book', true]],
  );
  const tasks = await conn.query('SELECT COUNT() FROM Task');
  assert.ok(tasks.totalSize > 0, 'seeded tasks');
});

test('Task and Event: Who / What lookups, derived account, polymorphic paths and TYPEOF', async () => {
  const conn = connect();
  const contact = (
    await conn.query<{ Id: string; AccountId: string; Name: string }>(
      'SELECT Id, AccountId, Name FROM Contact WHERE AccountId != null LIMIT 1',
    )
  ).records[0];
  const opp = (
    await conn.query<{ Id: string; AccountId: string; Name: string }>(
      'SELECT Id, AccountId, Name FROM Opportunity WHERE AccountId != null LIMIT 1',
    )
  ).records[0];
  assert.ok(contact && opp, 'seed has a contact and an opportunity with accounts');
  const task = (await conn
    .sobject('Task')
    .create({ Subject: 'Call', WhoId: contact.Id, WhatId: opp.Id })) as Saved;
  const lead = (await conn.sobject('Lead').create({ LastName: 'Polymorph', Company: 'Poly Inc' })) as Saved;
  const event = (await conn.sobject('Event').create({
    Subject: 'Meeting',
    WhoId: lead.id,
    StartDateTime: '2026-01-05T10:00:00.000+0000',
    EndDateTime: '2026-01-05T11:00:00.000+0000',
    DurationInMinutes: 60,
    ActivityDateTime: '2026-01-05T10:00:00.000+0000',
  })) as Saved;
  const got = (await conn.sobject('Task').retrieve(task.id)) as {
    Status: string;
    Priority: string;
    AccountId: string;
    IsClosed: boolean;
  };
  assert.deepEqual(
    [got.Status, got.Priority, got.AccountId, got.IsClosed],
    ['Not Started', 'Normal', opp.AccountId, false],
  );

  const rows = await conn.query<{
    Who: { attributes: { type: string }; Name: string };
    What: { attributes: { type: string }; Name: string } | null;
  }>(`SELECT Who.Name, What.Name FROM Task WHERE Id = '${task.id}'`);
  assert.equal(rows.records[0]?.Who.attributes.type, 'Contact');
  assert.equal(rows.records[0]?.Who.Name, contact.Name);
  assert.equal(rows.records[0]?.What?.attributes.type, 'Opportunity');
  const ev = await conn.query<{ Who: { attributes: { type: string }; Name: string } }>(
    `SELECT Who.Name FROM Event WHERE Id = '${event.id}'`,
  );
  assert.deepEqual([ev.records[0]?.Who.attributes.type, ev.records[0]?.Who.Name], ['Lead', 'Polymorph']);

  const typed = await conn.query<{ What: Record<string, unknown> }>(
    `SELECT TYPEOF What WHEN Opportunity THEN Name, StageName WHEN Account THEN Phone ELSE Id END FROM Task WHERE Id = '${task.id}'`,
  );
  const w = typed.records[0]?.What ?? {};
  assert.deepEqual(Object.keys(w).sort(), ['Name', 'StageName', 'attributes']);
  assert.equal(w.Name, opp.Name);
  const notPoly = await call(
    'GET',
    `${V}/query?q=${encodeURIComponent('SELECT TYPEOF Account WHEN Account THEN Name END FROM Contact')}`,
  );
  assert.equal(notPoly.status, 400);
  const sub = await conn.query<{ Tasks: { records: Array<{ Subject: string }> } | null }>(
    `SELECT Id, (SELECT Subject FROM Tasks) FROM Opportunity WHERE Id = '${opp.Id}'`,
  );
  assert.ok(
    sub.records[0]?.Tasks?.records.some((t) => t.Subject === 'Call'),
    'the task is among the opportunity tasks',
  );
  await conn.sobject('Task').update({ Id: task.id, Status: 'Completed' });
  const done = (await conn.sobject('Task').retrieve(task.id)) as {
    IsClosed: boolean;
    CompletedDateTime: string | null;
  };
  assert.equal(done.IsClosed, true);
  assert.match(done.CompletedDateTime ?? '', /\+0000$/);
});

test('Attachment, Note and ContentVersion: blobs answered by URL and served as bytes', async () => {
  const conn = connect();
  const account = (await conn.query<{ Id: string }>('SELECT Id FROM Account LIMIT 1')).records[0]
    ?.Id as string;
  const body = Buffer.from('hello sandbox').toString('base64');
  const att = (await conn
    .sobject('Attachment')
    .create({ ParentId: account, Name: 'hello.txt', Body: body, ContentType: 'text/plain' })) as Saved;
  const rec = (await conn.sobject('Attachment').retrieve(att.id)) as { Body: string; BodyLength: number };
  assert.equal(rec.Body, `${V}/sobjects/Attachment/${att.id}/Body`);
  assert.equal(rec.BodyLength, 13);
  const res = await fetch(`${sf().url}${rec.Body}`, {
    headers: { authorization: `Bearer ${sf().credentials.accessToken}` },
  });
  assert.equal(res.headers.get('content-type'), 'text/plain');
  assert.equal(await res.text(), 'hello sandbox');
  await assert.rejects(
    async () => conn.sobject('Attachment').create({ ParentId: account, Name: 'x' }),
    (e: Error & { errorCode?: string }) => e.errorCode === 'REQUIRED_FIELD_MISSING',
  );

  const note = (await conn
    .sobject('Note')
    .create({ ParentId: account, Title: 'Remember', Body: 'the milk' })) as Saved;
  const notes = await conn.query<{ Title: string; Parent: { attributes: { type: string } } }>(
    `SELECT Title, Parent.Name FROM Note WHERE Id = '${note.id}'`,
  );
  assert.equal(notes.records[0]?.Parent.attributes.type, 'Account');

  const cv = (await conn
    .sobject('ContentVersion')
    .create({ Title: 'Report', PathOnClient: 'report.pdf', VersionData: body })) as Saved;
  const version = (await conn.sobject('ContentVersion').retrieve(cv.id)) as {
    ContentDocumentId: string;
    FileType: string;
    ContentSize: number;
    IsLatest: boolean;
    VersionNumber: string;
  };
  assert.match(version.ContentDocumentId, /^069/);
  assert.deepEqual(
    [version.FileType, version.ContentSize, version.IsLatest, version.VersionNumber],
    ['PDF', 13, true, '1'],
  );
});

test('products, price book entries and opportunity line items with their computed prices', async () => {
  const conn = connect();
  const standard = (await conn.query<{ Id: string }>('SELECT Id FROM Pricebook2 WHERE IsStandard = true'))
    .records[0]?.Id as string;
  const product = (await conn
    .sobject('Product2')
    .create({ Name: 'Widget', ProductCode: 'W-1', IsActive: true })) as Saved;
  const entry = (await conn
    .sobject('PricebookEntry')
    .create({ Pricebook2Id: standard, Product2Id: product.id, UnitPrice: 40, IsActive: true })) as Saved;
  const pbe = (await conn.sobject('PricebookEntry').retrieve(entry.id)) as {
    Name: string;
    ProductCode: string;
  };
  assert.deepEqual([pbe.Name, pbe.ProductCode], ['Widget', 'W-1']);
  const opp = (await conn.query<{ Id: string; Name: string }>('SELECT Id, Name FROM Opportunity LIMIT 1'))
    .records[0];
  const line = (await conn
    .sobject('OpportunityLineItem')
    .create({ OpportunityId: opp?.Id, PricebookEntryId: entry.id, Quantity: 3 })) as Saved;
  const li = (await conn.sobject('OpportunityLineItem').retrieve(line.id)) as {
    UnitPrice: number;
    TotalPrice: number;
    ListPrice: number;
    Product2Id: string;
    Name: string;
  };
  assert.deepEqual([li.UnitPrice, li.TotalPrice, li.ListPrice, li.Product2Id], [40, 120, 40, product.id]);
  assert.equal(li.Name, `${opp?.Name} Widget`);
  const withLines = await conn.query<{ OpportunityLineItems: { totalSize: number } }>(
    `SELECT Id, (SELECT Quantity, PricebookEntry.Product2.Name FROM OpportunityLineItems) FROM Opportunity WHERE Id = '${opp?.Id}'`,
  );
  assert.equal(withLines.records[0]?.OpportunityLineItems.totalSize, 1);
  await assert.rejects(
    async () =>
      conn.sobject('OpportunityLineItem').create({ OpportunityId: opp?.Id, PricebookEntryId: entry.id }),
    (e: Error & { errorCode?: string }) => e.errorCode === 'REQUIRED_FIELD_MISSING',
  );
});
