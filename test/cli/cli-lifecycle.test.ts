import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConnectionService } from '../../src/connections/service.ts';
import { createKeyring } from '../../src/crypto/envelope.ts';
import { openStore } from '../../src/store/index.ts';
import { cleanEnv, runCli } from './run-cli.ts';

const k1 = randomBytes(32).toString('base64');
const k2 = randomBytes(32).toString('base64');
const SF_SECRET = 'sf-refresh-9c1d77e0';
const HS_SECRET = 'pat-na1-0d4e5f9a-secret';

/** Every file in the data dir, concatenated: the secrets must not be found in clear anywhere. */
function dataDirBytes(dir: string): string {
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f)).toString('latin1'))
    .join('');
}

describe('crm-proxy CLI: connections, tokens, rotate-key', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'crm-proxy-cli-'));
    env = cleanEnv({
      CRM_PROXY_DATA_DIR: dir,
      CRM_PROXY_ENCRYPTION_KEYS: `k1:${k1}`,
      CRM_PROXY_REGION: 'eu',
      // OAuth refresh tokens need the CRM's app; these made-up credentials are stored unchecked.
      SALESFORCE_CLIENT_ID: 'sf-client',
      SALESFORCE_CLIENT_SECRET: 'sf-secret',
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('connections, tokens and revocation end to end; no secret in output or on disk in clear', async () => {
    const sfAdd = await runCli(
      [
        'connections',
        'add',
        '--provider',
        'salesforce',
        '--instance-url',
        'https://acme.my.salesforce.com',
        '--refresh-token',
        '-',
        '--label',
        'Acme',
        '--skip-check',
      ],
      env,
      `${SF_SECRET}\n`,
    );
    assert.equal(sfAdd.code, 0, sfAdd.stderr);
    const sfId = sfAdd.stdout.trim();
    assert.match(sfId, /^conn_[0-9A-Za-z]{20}$/);
    assert.match(sfAdd.stderr, /tokens create --connection/);

    const hsAdd = await runCli(['connections', 'add', '--provider', 'hubspot', '--json', '--skip-check'], {
      ...env,
      CRM_PROXY_PRIVATE_APP_TOKEN: HS_SECRET,
    });
    assert.equal(hsAdd.code, 0, hsAdd.stderr);
    const hs = JSON.parse(hsAdd.stdout) as { id: string; provider: string };
    assert.equal(hs.provider, 'hubspot');

    const list = await runCli(['connections', 'list'], env);
    assert.equal(list.code, 0);
    assert.match(list.stdout, /^ID\s+PROVIDER\s+LABEL\s+STATUS/);
    assert.ok(list.stdout.includes(sfId) && list.stdout.includes(hs.id));
    const listJson = await runCli(['connections', 'list', '--json'], env);
    const all = JSON.parse(listJson.stdout) as { id: string; instanceUrl: string | null }[];
    assert.deepEqual(all.map((c) => c.id).sort(), [sfId, hs.id].sort());

    const created = await runCli(
      ['tokens', 'create', '--connection', sfId, '--name', 'ci', '--expires-in', '30d'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const token = created.stdout.trim();
    assert.match(token, /^crmp_eu_[0-9A-Za-z]{49}$/);
    assert.match(created.stderr, /shown only this once/);
    assert.ok(!created.stderr.includes(token));

    const tokens = await runCli(['tokens', 'list', '--connection', sfId, '--json'], env);
    const [rec] = JSON.parse(tokens.stdout) as {
      id: string;
      prefix: string;
      name: string;
      expiresAt: string;
    }[];
    assert.equal(rec?.name, 'ci');
    assert.equal(rec?.prefix, token.slice(0, 16));
    const days = (Date.parse(rec!.expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30);
    const table = await runCli(['tokens', 'list'], env);
    assert.match(table.stdout, new RegExp(`${rec!.prefix}…\\s+${sfId}\\s+ci\\s+active`));

    for (const out of [list, listJson, tokens, table].map((r) => r.stdout + r.stderr)) {
      assert.ok(!out.includes(SF_SECRET) && !out.includes(HS_SECRET) && !out.includes(token));
    }
    const disk = dataDirBytes(dir);
    assert.ok(!disk.includes(SF_SECRET) && !disk.includes(HS_SECRET) && !disk.includes(token));

    const revoked = await runCli(['tokens', 'revoke', rec!.prefix], env);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stderr, new RegExp(`Revoked token ${rec!.id}`));
    const again = await runCli(['tokens', 'revoke', rec!.id], env);
    assert.equal(again.code, 0);
    assert.match(again.stderr, /already revoked/);
    assert.match((await runCli(['tokens', 'list'], env)).stdout, /revoked/);
    const missing = await runCli(['tokens', 'revoke', 'tok_doesnotexist'], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No token matches/);

    const reauth = await runCli(
      ['connections', 'reauth', sfId, '--refresh-token', '-', '--skip-check'],
      env,
      'sf-new-refresh\n',
    );
    assert.equal(reauth.code, 0, reauth.stderr);
    assert.match(reauth.stderr, /active again/);
    const badReauth = await runCli(['connections', 'reauth', sfId, '--private-app-token', 'x'], env);
    assert.equal(badReauth.code, 2);

    await runCli(['tokens', 'create', '--connection', hs.id], env);
    const removed = await runCli(['connections', 'remove', hs.id], env);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stderr, /and its 1 API token/);
    assert.equal((await runCli(['connections', 'remove', hs.id], env)).code, 1);
    assert.deepEqual(
      JSON.parse((await runCli(['tokens', 'list', '--connection', hs.id, '--json'], env)).stdout),
      [],
    );
  });

  test('rotate-key re-encrypts under the new key, is safe to re-run, and the old key can then be dropped', async () => {
    const rdir = mkdtempSync(join(tmpdir(), 'crm-proxy-rotate-'));
    try {
      const oldEnv = cleanEnv({
        CRM_PROXY_DATA_DIR: rdir,
        CRM_PROXY_ENCRYPTION_KEYS: `k1:${k1}`,
        HUBSPOT_CLIENT_ID: 'hs-client',
        HUBSPOT_CLIENT_SECRET: 'hs-secret',
      });
      const add = await runCli(
        ['connections', 'add', '--provider', 'hubspot', '--refresh-token', '-', '--skip-check'],
        oldEnv,
        'hs-refresh\n',
      );
      assert.equal(add.code, 0, add.stderr);
      const id = add.stdout.trim();

      const both = cleanEnv({
        CRM_PROXY_DATA_DIR: rdir,
        CRM_PROXY_ENCRYPTION_KEYS: `k1:${k1},k2:${k2}`,
        CRM_PROXY_ENCRYPTION_KEY_ID: 'k2',
      });
      const first = await runCli(['rotate-key', '--json'], both);
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(JSON.parse(first.stdout), { activeKeyId: 'k2', resealed: 1, current: 0, failed: [] });
      const second = await runCli(['rotate-key'], both);
      assert.equal(second.code, 0);
      assert.match(second.stderr, /re-encrypted 0, already current 1, failed 0/);

      const store = await openStore({ dataDir: rdir });
      try {
        const onlyNew = new ConnectionService({
          store,
          keyring: createKeyring([{ id: 'k2', key: Buffer.from(k2, 'base64') }]),
          region: 'eu',
        });
        assert.deepEqual((await onlyNew.get(id))?.credentials, { kind: 'oauth', refreshToken: 'hs-refresh' });
      } finally {
        await store.close();
      }
    } finally {
      rmSync(rdir, { recursive: true, force: true });
    }
  });
});
