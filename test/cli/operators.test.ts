import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Browser } from '../api/console-browser.ts';
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

test('the operator lifecycle from the CLI reaches the running service at once, and is in the request log', async (t) => {
  const s = await startStack(t);
  const env = cleanEnv({ CRM_PROXY_DATA_DIR: s.ctx.config.dataDir, CRM_PROXY_REGION: 'eu' });
  const first = await runCli(
    ['operators', 'create', '--email', 'lead@example.com'],
    env,
    'the lead passphrase\n',
  );
  assert.match(first.stderr, /who manages the other operators/);
  for (const [pw, why] of [
    ['aaaaaaaaaaaaaaaa', /one character repeated/],
    ['            ', /whitespace only/],
    ['password1234', /most common passwords/],
  ] as const) {
    const refused = await runCli(['operators', 'create', '--email', 'ops@example.com'], env, `${pw}\n`);
    assert.equal(refused.code, 1, pw);
    assert.match(refused.stderr, why);
  }
  assert.equal(
    (await runCli(['operators', 'create', '--email', 'ops@example.com'], env, 'a long enough password\n'))
      .code,
    0,
  );
  // Signed in to the running service, with a key.
  const b = new Browser(s);
  assert.equal((await b.signIn('ops@example.com', 'a long enough password')).status, 303);
  const key = (await runCli(['operators', 'key', 'create', '--email', 'ops@example.com'], env)).stdout.trim();
  const admin = () => s.api('/v1/admin/connections', { method: 'GET', token: key });
  assert.equal((await admin()).status, 200);

  const sessions = await runCli(['operators', 'sessions', 'ops@example.com', '--json'], env);
  const listed = JSON.parse(sessions.stdout) as Array<{ idHash: string; csrfToken?: string }>;
  assert.equal(listed.length, 1);
  assert.equal(listed[0]?.csrfToken, undefined, 'the form secret is not shown');

  // Disabled from the CLI (another process on the same store): the service refuses at once.
  const disabled = await runCli(['operators', 'disable', 'ops@example.com'], env);
  assert.equal(disabled.code, 0, disabled.stderr);
  assert.equal((await b.go('/console/connections')).status, 303);
  assert.equal((await admin()).status, 401);
  assert.equal((await new Browser(s).signIn('ops@example.com', 'a long enough password')).status, 401);
  assert.equal((await runCli(['operators', 'enable', 'ops@example.com'], env)).code, 0);
  assert.equal((await b.signIn('ops@example.com', 'a long enough password')).status, 303);

  // A reset from the CLI ends the session; with --current, the current password is needed.
  const wrong = await runCli(
    ['operators', 'password', 'ops@example.com', '--current'],
    env,
    'not it at all\nbrand new passphrase\n',
  );
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /current password is wrong/);
  assert.equal((await b.go('/console/connections')).status, 200);
  const changed = await runCli(
    ['operators', 'password', 'ops@example.com', '--current'],
    env,
    'a long enough password\nbrand new passphrase\n',
  );
  assert.equal(changed.code, 0, changed.stderr);
  assert.equal((await b.go('/console/connections')).status, 303);
  assert.equal((await b.signIn('ops@example.com', 'brand new passphrase')).status, 303);
  assert.equal((await runCli(['operators', 'sessions', 'end', 'ops@example.com'], env)).code, 0);
  assert.equal((await b.go('/console/connections')).status, 303);
  assert.equal(
    (await runCli(['operators', 'password', 'ops@example.com'], env, 'reset by the admin\n')).code,
    0,
  );
  assert.ok(await s.ctx.operators.checkPassword('ops@example.com', 'reset by the admin'));

  const lastManager = await runCli(['operators', 'remove', 'lead@example.com'], env);
  assert.equal(lastManager.code, 1);
  assert.match(lastManager.stderr, /last enabled operator who can manage/);
  assert.equal((await runCli(['operators', 'remove', 'ops@example.com'], env)).code, 0);
  const last = await runCli(['operators', 'remove', 'lead@example.com'], env);
  assert.match(last.stderr, /last operator cannot be removed/);

  const log = await s.ctx.admin.requests({ limit: 100 });
  const cli = log.filter((e) => e.interface === 'cli');
  assert.ok(
    cli.every((e) => e.method === 'CLI' && /^cli:/.test(e.actor ?? '')),
    JSON.stringify(cli),
  );
  const paths = cli.map((e) => `${e.path} ${e.status}`);
  for (const want of [
    'operators disable ops@example.com 200',
    'operators enable ops@example.com 200',
    'operators password ops@example.com --current 403',
    'operators remove lead@example.com 409',
    'operators remove ops@example.com 200',
  ])
    assert.ok(paths.includes(want), `${want} in ${paths.join(', ')}`);
});
