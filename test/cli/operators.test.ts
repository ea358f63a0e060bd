import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { cleanEnv, runCli } from './run-cli.ts';

test('operators, operator keys, the request log and usage from the CLI, on the service’s own store', async (t) => {
  const s = await startStack(t);
  const env = cleanEnv({ CRM_PROXY_DATA_DIR: s.ctx.config.dataDir, CRM_PROXY_REGION: 'eu' });

  const created = await runCli(
    ['operators', 'create', '--email', 'Ops@Example.com'],
    env,
    'a long enough password\n',
  );
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stderr, /Created operator ops@example.com/);
  assert.ok(!created.stdout.includes('password') && !created.stderr.includes('a long enough password'));
  const again = await runCli(
    ['operators', 'create', '--email', 'ops@example.com'],
    env,
    'another long password\n',
  );
  assert.equal(again.code, 1);
  assert.match(again.stderr, /exists already/);
  const short = await runCli(['operators', 'create', '--email', 'b@example.com'], env, 'short\n');
  assert.equal(short.code, 1);
  assert.match(short.stderr, /at least 12 characters/);
  assert.equal((await runCli(['operators', 'create'], env, '')).code, 2);
  assert.ok(await s.ctx.operators.checkPassword('ops@example.com', 'a long enough password'));

  const key = await runCli(
    ['operators', 'key', 'create', '--email', 'ops@example.com', '--label', 'ci'],
    env,
  );
  assert.equal(key.code, 0, key.stderr);
  const secret = key.stdout.trim();
  assert.match(secret, /^crmpk_[0-9A-Za-z]{43}$/);
  const listed = await s.api<{ data: Array<{ id: string }> }>('/v1/admin/connections', {
    method: 'GET',
    token: secret,
  });
  assert.equal(listed.status, 200);
  assert.equal(listed.body.data.length, 2);

  const call = await s.api('/v1/describe');
  assert.equal(call.status, 200);
  await s.ctx.requestLog.flush();
  const requests = await runCli(
    ['requests', 'list', '--json', '--connection', s.connectionIds.salesforce],
    env,
  );
  assert.equal(requests.code, 0, requests.stderr);
  const entries = JSON.parse(requests.stdout) as Array<{ requestId: string; status: number }>;
  assert.deepEqual(
    entries.map((e) => [e.requestId, e.status]),
    [[call.headers.get('x-request-id'), 200]],
  );
  const table = await runCli(['requests', 'list', '--status', '2xx'], env);
  assert.match(table.stdout, /REQUEST ID[\s\S]*\/v1\/describe/);
  assert.equal((await runCli(['requests', 'list', '--status', '7xx'], env)).code, 2);
  const usage = await runCli(['usage', '--json', '--hours', '24'], env);
  const series = JSON.parse(usage.stdout) as Array<{ connectionId: string; requests: number[] }>;
  assert.equal(
    series.find((x) => x.connectionId === s.connectionIds.salesforce)?.requests.reduce((a, b) => a + b, 0),
    1,
  );

  const keys = JSON.parse((await runCli(['operators', 'key', 'list', '--json'], env)).stdout) as Array<{
    id: string;
  }>;
  assert.equal((await runCli(['operators', 'key', 'revoke', keys[0]?.id ?? ''], env)).code, 0);
  assert.equal((await s.api('/v1/admin/connections', { method: 'GET', token: secret })).status, 401);
});
