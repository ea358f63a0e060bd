// NODE_ENV=production: a CRM is reached over https only, sandbox connections included, unless
// CRM_PROXY_ALLOW_PLAIN_HTTP_CRM opts out for a private network; doctor flags any connection that
// does not, and the API refuses calls on one stored before (`503 connection_plain_http`).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { startService } from '../../src/main.ts';
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

/** A stand-in CRM on loopback plain http that counts what reaches it. */
async function recordingCrm(t: { after(fn: () => Promise<void>): void }) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.setHeader('content-type', 'application/json');
    res.end('{"results":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

test('a plain-http connection stored earlier is refused at call time in production, and nothing is sent', async (t) => {
  const crm = await recordingCrm(t);
  const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-plain-http-call-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const base = {
    PORT: '0',
    HOST: '127.0.0.1',
    CRM_PROXY_DATA_DIR: dir,
    CRM_PROXY_SANDBOX: 'false',
    CRM_PROXY_ENCRYPTION_KEYS: `k1:${key}`,
    LOG_LEVEL: 'silent',
    CRM_PROXY_RATE_LIMIT_PER_SECOND: '0',
  };
  // Stored by a development start, where plain http is allowed for a sandbox connection.
  const dev = await startService(loadConfig(base));
  let token: string;
  try {
    const created = await dev.ctx.connections.create({
      provider: 'hubspot',
      label: 'stored over plain http',
      apiBaseUrl: crm.url,
      sandbox: true,
      credentials: { kind: 'private_app', token: 'pat-na1-plain-http-call' },
    });
    assert.ok(created.ok);
    const issued = await dev.ctx.auth.createToken({ connectionId: created.connection.id, name: 'app' });
    assert.ok(issued.ok);
    token = issued.token;
  } finally {
    await dev.close();
  }

  const call = async (env: Record<string, string>, [method, path]: readonly [string, string]) => {
    const service = await startService(loadConfig({ ...base, ...env }));
    try {
      const res = await fetch(`${service.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
      });
      return {
        status: res.status,
        body: (await res.json()) as { error?: { code: string; message: string } },
      };
    } finally {
      await service.close();
    }
  };
  const production = { NODE_ENV: 'production' };
  const proxied = ['GET', '/v1/proxy/crm/v3/objects/contacts'] as const;
  for (const route of [['POST', '/v1/describe'] as const, proxied]) {
    const path = route[1];
    const refused = await call(production, route);
    assert.equal(refused.status, 503, path);
    assert.equal(refused.body.error?.code, 'connection_plain_http', path);
    assert.match(refused.body.error?.message ?? '', /apiBaseUrl http:\/\/127\.0\.0\.1:\d+/);
    assert.match(refused.body.error?.message ?? '', /CRM_PROXY_ALLOW_PLAIN_HTTP_CRM=true/);
    assert.match(refused.body.error?.message ?? '', /add it again with an https:\/\/ apiBaseUrl/);
    assert.doesNotMatch(refused.body.error?.message ?? '', /pat-na1/);
  }
  assert.deepEqual(crm.seen, [], 'no request reached the CRM');

  // With the opt-out the same call goes through.
  const allowed = await call({ ...production, CRM_PROXY_ALLOW_PLAIN_HTTP_CRM: 'true' }, proxied);
  assert.equal(allowed.status, 200);
  assert.deepEqual(crm.seen, ['GET /crm/v3/objects/contacts']);
});

test('production refuses to re-authorize a plain-http connection: no token goes out over plain http', async (t) => {
  const env = productionEnv(t);
  const optedOut = { ...env, CRM_PROXY_ALLOW_PLAIN_HTTP_CRM: 'true' };
  const add = await runCli([...addSandbox, ...httpBase, '--json'], optedOut);
  assert.equal(add.code, 0, add.stderr);
  const id = (JSON.parse(add.stdout) as { id: string }).id;
  const reauth = await runCli(['connections', 'reauth', id, '--private-app-token', 'pat-na1-other'], env);
  assert.notEqual(reauth.code, 0);
  assert.match(
    reauth.stderr,
    new RegExp(
      `Connection ${id} \\(hubspot\\) reaches its CRM over plain http \\(apiBaseUrl http://127\\.0\\.0\\.1:9\\)`,
    ),
  );
  assert.match(reauth.stderr, /CRM_PROXY_ALLOW_PLAIN_HTTP_CRM=true/);
  const allowed = await runCli(
    ['connections', 'reauth', id, '--private-app-token', 'pat-na1-other', '--skip-check'],
    optedOut,
  );
  assert.equal(allowed.code, 0, allowed.stderr);
});
