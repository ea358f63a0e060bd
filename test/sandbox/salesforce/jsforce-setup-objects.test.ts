import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { connectTo } from './jsforce-helpers.ts';
import { useSandbox } from './rest-helpers.ts';

const { sf, reset, call } = useSandbox();
beforeEach(reset);

const connect = () => connectTo(sf());

test("jsforce: Organization is the org itself, its id the identity's organization id", async () => {
  const conn = connect();
  // The Salesforce CLI's own query before every command.
  const org = await conn.query<Record<string, unknown>>(
    'SELECT Id, Name, InstanceName, IsSandbox, TrialExpirationDate, NamespacePrefix, OrganizationType, CreatedDate FROM Organization',
  );
  assert.equal(org.totalSize, 1);
  const row = org.records[0] ?? {};
  const identity = await conn.identity();
  assert.equal(row['Id'], identity.organization_id);
  assert.deepEqual(
    [
      row['Name'],
      row['IsSandbox'],
      row['OrganizationType'],
      row['NamespacePrefix'],
      row['TrialExpirationDate'],
    ],
    ['crm-proxy Sandbox', false, 'Developer Edition', null, null],
  );
  const describe = await conn.sobject('Organization').describe();
  assert.deepEqual([describe.keyPrefix, describe.createable, describe.updateable], ['00D', false, false]);
  await assert.rejects(
    conn.sobject('Organization').create({ Name: 'Another' }),
    (e: Error & { errorCode?: string }) => typeof e.errorCode === 'string',
  );
});

test('jsforce: User, Profile, UserRole, RecordType and PermissionSet answer queries tools run first', async () => {
  const conn = connect();
  const users = await conn.query<{ Username: string; Profile: { Name: string } }>(
    'SELECT Id, Username, Profile.Name FROM User WHERE IsActive = true ORDER BY Username',
  );
  assert.ok(users.records.some((u) => u.Profile.Name === 'System Administrator'));
  const profiles = await conn.query<{ Name: string }>('SELECT Id, Name FROM Profile ORDER BY Name');
  assert.deepEqual(
    profiles.records.map((p) => p.Name),
    ['Read Only', 'Standard User', 'System Administrator'],
  );
  const roles = await conn.query<{ Name: string; ParentRole: { Name: string } | null }>(
    'SELECT Id, Name, DeveloperName, ParentRole.Name FROM UserRole ORDER BY Name',
  );
  assert.deepEqual(
    roles.records.map((r) => [r.Name, r.ParentRole?.Name ?? null]),
    [
      ['CEO', null],
      ['VP, Sales', 'CEO'],
    ],
  );
  const types = await conn.query(
    "SELECT Id, Name, DeveloperName, SobjectType FROM RecordType WHERE SobjectType = 'Account'",
  );
  assert.equal(types.totalSize, 0);
  const sets = await conn.query<{ Name: string }>(
    'SELECT Name FROM PermissionSet WHERE IsOwnedByProfile = false',
  );
  assert.deepEqual(
    sets.records.map((p) => p.Name),
    ['Sales_Operations'],
  );
});

test('jsforce: /limits/recordCount counts live records, all or the ones asked for', async () => {
  const conn = connect();
  type Counts = { sObjects: Array<{ count: number; name: string }> };
  const all = await conn.request<Counts>('/services/data/v62.0/limits/recordCount');
  const accounts = all.sObjects.find((s) => s.name === 'Account')?.count ?? 0;
  assert.ok(accounts > 0);
  assert.ok(all.sObjects.every((s) => s.count > 0));
  assert.equal(all.sObjects.find((s) => s.name === 'Organization')?.count, 1);
  const created = await conn.sobject('Account').create({ Name: 'Counted' });
  const two = await conn.request<Counts>(
    '/services/data/v62.0/limits/recordCount?sObjects=Account,RecordType',
  );
  assert.deepEqual(two.sObjects, [
    { count: accounts + 1, name: 'Account' },
    { count: 0, name: 'RecordType' },
  ]);
  await conn.sobject('Account').destroy((created as { id: string }).id);
  const bad = await call('GET', '/services/data/v62.0/limits/recordCount?sObjects=Nope__c');
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body, [
    { errorCode: 'INVALID_TYPE', message: "sObject type 'Nope__c' is not supported." },
  ]);
});
