import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cleanEnv, runCli } from './run-cli.ts';

const k1 = randomBytes(32).toString('base64');

describe('crm-proxy CLI: invocation, usage errors, keys', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'crm-proxy-cli-'));
    env = cleanEnv({
      CRM_PROXY_DATA_DIR: dir,
      CRM_PROXY_ENCRYPTION_KEYS: `k1:${k1}`,
      CRM_PROXY_REGION: 'eu',
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('help exits 0; no command and unknown commands or options exit 2 with a pointer to help', async () => {
    const help = await runCli(['help'], env);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /\.\/bin\/crm-proxy\.mjs connections add --provider salesforce/);
    assert.match(help.stdout, /tokens revoke ID\|PREFIX/);
    const viaBin = await runCli(['help'], env, undefined, true);
    assert.equal(viaBin.code, 0, viaBin.stderr);
    assert.equal(viaBin.stdout, help.stdout);
    assert.equal((await runCli([], env)).code, 2);
    const unknown = await runCli(['frobnicate'], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"[\s\S]*\.\/bin\/crm-proxy\.mjs help/);
    const badOpt = await runCli(['tokens', 'list', '--bogus'], env);
    assert.equal(badOpt.code, 2);
    assert.match(badOpt.stderr, /--bogus/);
  });

  test('usage errors: missing flags, bad durations, unknown connection', async () => {
    const noUrl = await runCli(
      ['connections', 'add', '--provider', 'salesforce', '--refresh-token', 'x'],
      env,
    );
    assert.equal(noUrl.code, 2);
    assert.match(noUrl.stderr, /--instance-url is required/);
    const noSecret = await runCli(['connections', 'add', '--provider', 'hubspot'], env);
    assert.equal(noSecret.code, 2);
    assert.match(noSecret.stderr, /--refresh-token or --private-app-token is required/);
    const badUrl = await runCli(
      [
        'connections',
        'add',
        '--provider',
        'salesforce',
        '--instance-url',
        'http://acme.example',
        '--refresh-token',
        'x',
      ],
      env,
    );
    assert.equal(badUrl.code, 1);
    assert.match(badUrl.stderr, /instanceUrl must use https/);
    const badDuration = await runCli(
      ['tokens', 'create', '--connection', 'conn_x', '--expires-in', 'soon'],
      env,
    );
    assert.equal(badDuration.code, 2);
    assert.match(badDuration.stderr, /--expires-in must be a positive duration/);
    const noConn = await runCli(['tokens', 'create', '--connection', 'conn_x'], env);
    assert.equal(noConn.code, 1);
    assert.match(noConn.stderr, /No connection conn_x/);
  });

  test('keys: generated (0600, announced) in sandbox mode, refused in production', async () => {
    const kdir = mkdtempSync(join(tmpdir(), 'crm-proxy-keys-'));
    try {
      const sandbox = await runCli(['connections', 'list'], cleanEnv({ CRM_PROXY_DATA_DIR: kdir }));
      assert.equal(sandbox.code, 0, sandbox.stderr);
      assert.match(sandbox.stderr, /generated a development encryption key/);
      assert.equal(statSync(join(kdir, 'encryption-key')).mode & 0o777, 0o600);

      const prod = await runCli(
        ['tokens', 'list'],
        cleanEnv({ CRM_PROXY_DATA_DIR: join(kdir, 'prod'), NODE_ENV: 'production' }),
      );
      assert.equal(prod.code, 1);
      assert.match(prod.stderr, /CRM_PROXY_ENCRYPTION_KEYS is required when NODE_ENV=production/);
      assert.throws(() => statSync(join(kdir, 'prod')), /ENOENT/, 'nothing created before the refusal');
    } finally {
      rmSync(kdir, { recursive: true, force: true });
    }
  });
});
