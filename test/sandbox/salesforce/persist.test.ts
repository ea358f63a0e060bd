import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import jsforce from 'jsforce';
import { startSalesforceSandbox } from '../../../sandbox/salesforce/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'sf-persist-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const connect = (sf: { url: string; credentials: { accessToken: string } }) =>
  new jsforce.Connection({ instanceUrl: sf.url, accessToken: sf.credentials.accessToken, version: '62.0' });

test('persistDir keeps records, deletions and schema across a restart; off by default', async () => {
  const first = await startSalesforceSandbox({ port: 0, persistDir: dir });
  const conn = connect(first);
  await conn.tooling.sobject('CustomField').create({
    FullName: 'Account.Tier__c',
    Metadata: { label: 'Tier', type: 'Text', length: 20 },
  });
  const kept = (await conn.sobject('Account').create({ Name: 'Persisted Co', Tier__c: 'Gold' })) as {
    id: string;
  };
  const gone = (await conn.sobject('Account').create({ Name: 'Deleted Co' })) as { id: string };
  await conn.sobject('Account').destroy(gone.id);
  await first.close();
  assert.ok(existsSync(join(dir, 'salesforce-sandbox.state')), 'the state file is written on close');

  const second = await startSalesforceSandbox({ port: 0, persistDir: dir, credentials: first.credentials });
  const again = connect(second);
  const rec = (await again.sobject('Account').retrieve(kept.id)) as { Name: string; Tier__c: string };
  assert.deepEqual([rec.Name, rec.Tier__c], ['Persisted Co', 'Gold']);
  const deleted = await again.query<{ IsDeleted: boolean }>(
    `SELECT IsDeleted FROM Account WHERE Id = '${gone.id}'`,
    { scanAll: true },
  );
  assert.equal(deleted.records[0]?.IsDeleted, true);
  // New ids do not collide with the ones handed out before the restart.
  const next = (await again.sobject('Account').create({ Name: 'After restart' })) as { id: string };
  assert.notEqual(next.id, kept.id);
  assert.notEqual(next.id, gone.id);
  await second.close();

  const plain = await startSalesforceSandbox({ port: 0 });
  await assert.rejects(
    async () => connect(plain).sobject('Account').retrieve(kept.id),
    (e: Error & { errorCode?: string }) => e.errorCode === 'NOT_FOUND',
  );
  await plain.close();
});
