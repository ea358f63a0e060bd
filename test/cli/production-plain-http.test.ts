// NODE_ENV=production: a CRM is reached over https only, sandbox connections included, unless
// CRM_PROXY_ALLOW_PLAIN_HTTP_CRM opts out for a private network; doctor flags any connection that does not.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, runCli } from './run-cli.ts';

const key = randomBytes(32).toString('base64');

function productionEnv(t: { after(fn: () => void): void }): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-plain-http-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return cleanEnv({
    NODE_ENV: 'production',
    CRM_PROXY_DATA_DIR: dir,
    CRM_PROXY_ENCRYPTION_KEYS: `k1:${key}`,
    CRM_PROXY_PRIVATE_APP_TOKEN: 'pat-na1-plain-http-test',
  });
}

// Port 9 (discard) on loopback: nothing answers, so no call can succeed by accident.
const addSandbox = ['connections', 'add', '--provider', 'hubspot', '--sandbox', '--skip-check'];
const httpBase = ['--api-base-url', 'http://127.0.0.1:9'];

test('production refuses a --sandbox connection over plain http and names the opt-out', async (t) => {
  const env = productionEnv(t);
  const run = await runCli([...addSandbox, ...httpBase], env);
  assert.notEqual(run.code, 0);
  assert.match(run.stderr, /apiBaseUrl must use https.*CRM_PROXY_ALLOW_PLAIN_HTTP_CRM=true/);
  const list = await runCli(['connections', 'list', '--json'], env);
  assert.deepEqual(JSON.parse(list.stdout), []);
  const https = await runCli([...addSandbox, '--api-base-url', 'https://hubspot.internal.example'], env);
  assert.equal(https.code, 0, https.stderr);
});

test('with the opt-out the connection is stored, and doctor flags it; without it doctor fails it', async (t) => {
  const env = productionEnv(t);
  const optedOut = { ...env, CRM_PROXY_ALLOW_PLAIN_HTTP_CRM: 'true' };
  const add = await runCli([...addSandbox, ...httpBase, '--json'], optedOut);
  assert.equal(add.code, 0, add.stderr);
  const id = (JSON.parse(add.stdout) as { id: string }).id;

  const warned = await runCli(['doctor'], optedOut);
  assert.match(
    warned.stderr,
    new RegExp(`warn\\s+connection ${id}.*plain http \\(apiBaseUrl http://127\\.0\\.0\\.1:9\\)`),
  );
  const failed = await runCli(['doctor'], env);
  assert.notEqual(failed.code, 0);
  assert.match(failed.stderr, new RegExp(`FAIL\\s+connection ${id}.*plain http`));
  assert.match(failed.stderr, /CRM_PROXY_ALLOW_PLAIN_HTTP_CRM=true/);
});

test('production refuses a plain-http SALESFORCE_LOGIN_URL unless opted out', async (t) => {
  const env = { ...productionEnv(t), SALESFORCE_LOGIN_URL: 'http://login.internal.example' };
  const refused = await runCli(['doctor'], env);
  assert.notEqual(refused.code, 0);
  assert.match(`${refused.stdout}${refused.stderr}`, /SALESFORCE_LOGIN_URL is a plain http:\/\/ URL/);
  const allowed = await runCli(['doctor'], { ...env, CRM_PROXY_ALLOW_PLAIN_HTTP_CRM: 'true' });
  assert.doesNotMatch(`${allowed.stdout}${allowed.stderr}`, /SALESFORCE_LOGIN_URL is a plain/);
});
