import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { connectTo } from './jsforce-helpers.ts';
import { useSandbox, V } from './rest-helpers.ts';

// jsforce 3.10.16 (package.json): conn.tooling.
const { sf, call, reset } = useSandbox();
beforeEach(reset);

const connect = () => connectTo(sf());

test('tooling describe global and per-object describe', async () => {
  const conn = connect();
  const global = await conn.tooling.describeGlobal();
  assert.deepEqual(
    global.sobjects.map((s) => s.name),
    ['CustomField', 'CustomObject', 'EntityDefinition'],
  );
  assert.match(String(global.sobjects[0]?.urls?.describe), /\/tooling\/sobjects\/CustomField\/describe$/);
  const described = await conn.tooling.sobject('CustomObject').describe();
  assert.equal(described.name, 'CustomObject');
  assert.equal((await call('GET', `${V}/tooling/sobjects/Nope/describe`)).status, 404);
  const info = await call('GET', `${V}/tooling/sobjects/CustomField`);
  assert.equal((info.body as { objectDescribe: { name: string } }).objectDescribe.name, 'CustomField');
});

test('CustomObject honours its name field: an AutoNumber name is not required and gets its format', async () => {
  const conn = connect();
  const res = (await conn.tooling.sobject('CustomObject').create({
    FullName: 'Ticket__c',
    Metadata: {
      label: 'Ticket',
      pluralLabel: 'Tickets',
      nameField: { type: 'AutoNumber', label: 'Ticket Number', displayFormat: 'T-{0000}' },
      deploymentStatus: 'Deployed',
      sharingModel: 'ReadWrite',
    },
  })) as { id: string; success: boolean };
  assert.equal(res.success, true);
  const d = await conn.sobject('Ticket__c').describe();
  const name = d.fields.find((f) => f.name === 'Name');
  assert.deepEqual(
    [name?.label, name?.autoNumber, name?.createable, name?.nillable],
    ['Ticket Number', true, false, false],
  );
  assert.equal('displayFormat' in (name ?? {}), false);
  const a = (await conn.sobject('Ticket__c').create({})) as { id: string };
  const b = (await conn.sobject('Ticket__c').create({})) as { id: string };
  const rows = await conn.query<{ Id: string; Name: string }>('SELECT Id, Name FROM Ticket__c ORDER BY Name');
  assert.deepEqual(
    rows.records.map((r) => [r.Id, r.Name]),
    [
      [a.id, 'T-0001'],
      [b.id, 'T-0002'],
    ],
  );

  const text = (await conn.tooling.sobject('CustomObject').create({
    FullName: 'Widget__c',
    Metadata: { label: 'Widget', pluralLabel: 'Widgets', nameField: { type: 'Text', label: 'Widget Title' } },
  })) as { success: boolean };
  assert.equal(text.success, true);
  const w = await conn.sobject('Widget__c').describe();
  assert.equal(w.fields.find((f) => f.name === 'Name')?.label, 'Widget Title');
  await assert.rejects(
    async () => conn.sobject('Widget__c').create({}),
    (e: Error & { errorCode?: string }) => e.errorCode === 'REQUIRED_FIELD_MISSING',
  );
  const bad = await call('POST', `${V}/tooling/sobjects/CustomObject`, {
    FullName: 'Bad__c',
    Metadata: { label: 'Bad', pluralLabel: 'Bads', nameField: { type: 'AutoNumber', label: 'No' } },
  });
  assert.equal(bad.status, 400);

  const tooling = await conn.tooling.query<{ DeveloperName: string }>(
    "SELECT Id, DeveloperName FROM CustomObject WHERE DeveloperName = 'Ticket'",
  );
  assert.equal(tooling.records.length, 1);
});

test('a new Case gets the next case number', async () => {
  const conn = connect();
  const c = (await conn.sobject('Case').create({ Subject: 'Numbered' })) as { id: string };
  const got = (await conn.sobject('Case').retrieve(c.id)) as { CaseNumber: string };
  const max = await conn.query<{ CaseNumber: string }>(
    'SELECT CaseNumber FROM Case ORDER BY CaseNumber DESC LIMIT 1',
  );
  assert.equal(got.CaseNumber, max.records[0]?.CaseNumber);
  assert.match(got.CaseNumber, /^\d{8}$/);
});
