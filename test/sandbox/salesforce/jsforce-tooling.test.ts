import assert from 'node:assert/strict';
import { test } from 'node:test';
import jsforce from 'jsforce';
import { startSalesforceSandbox } from '../../../sandbox/salesforce/index.ts';

async function start(t: { after: (fn: () => Promise<void>) => void }) {
  const sf = await startSalesforceSandbox({ port: 0 });
  t.after(() => sf.close());
  const conn = new jsforce.Connection({
    instanceUrl: sf.url,
    accessToken: sf.credentials.accessToken,
    version: '62.0',
  });
  return { sf, conn };
}

test('jsforce tooling CustomField create, then describe, write and query the new field', async (t) => {
  const { conn } = await start(t);
  const ret = await conn.tooling.sobject('CustomField').create({
    FullName: 'Account.Loyalty_Tier__c',
    Metadata: {
      label: 'Loyalty Tier',
      type: 'Picklist',
      valueSet: {
        restricted: true,
        valueSetDefinition: {
          sorted: false,
          value: [
            { fullName: 'Gold', default: false },
            { fullName: 'Silver', default: false },
          ],
        },
      },
    },
  });
  assert.equal(ret.success, true);
  assert.match(String(ret.id), /^00N/);

  const describe = await conn.describe('Account');
  const field = describe.fields.find((f) => f.name === 'Loyalty_Tier__c');
  assert.equal(field?.type, 'picklist');
  assert.deepEqual(
    field?.picklistValues?.map((p) => p.value),
    ['Gold', 'Silver'],
  );

  const created = await conn.sobject('Account').create({ Name: 'Tiered', Loyalty_Tier__c: 'Gold' });
  assert.equal(created.success, true);
  const rows = await conn.query<{ Loyalty_Tier__c: string }>(
    "SELECT Loyalty_Tier__c FROM Account WHERE Loyalty_Tier__c = 'Gold'",
  );
  assert.equal(rows.totalSize, 1);
  assert.equal(rows.records[0]?.Loyalty_Tier__c, 'Gold');
  // A restricted picklist refuses values outside its set.
  await assert.rejects(
    async () => conn.sobject('Account').create({ Name: 'Bad tier', Loyalty_Tier__c: 'Bronze' }),
    /bad value for restricted picklist field: Bronze/,
  );

  const tq = await conn.tooling.query<{ Id: string; DeveloperName: string }>(
    "SELECT Id, DeveloperName FROM CustomField WHERE TableEnumOrId = 'Account' AND DeveloperName = 'Loyalty_Tier'",
  );
  assert.equal(tq.totalSize, 1);
  assert.equal(tq.records[0]?.Id, ret.id);
});

test('jsforce tooling create surfaces the validation error of a bad definition', async (t) => {
  const { conn } = await start(t);
  await assert.rejects(
    async () =>
      conn.tooling
        .sobject('CustomField')
        .create({ FullName: 'Account.Flag__c', Metadata: { label: 'Flag', type: 'Checkbox' } }),
    (e: Error & { errorCode?: string }) => {
      assert.equal(e.errorCode, 'FIELD_INTEGRITY_EXCEPTION');
      assert.equal(e.message, "Must specify 'defaultValue' for a CustomField of type Checkbox");
      return true;
    },
  );
});

test('jsforce tooling describe of CustomField lists its Tooling fields', async (t) => {
  const { conn } = await start(t);
  const d = await conn.tooling.describe('CustomField');
  assert.equal(d.name, 'CustomField');
  for (const f of ['Id', 'DeveloperName', 'TableEnumOrId', 'FullName', 'Metadata']) {
    assert.ok(
      d.fields.some((x) => x.name === f),
      f,
    );
  }
});
