import assert from 'node:assert/strict';
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { test } from 'node:test';
import { isLoopback } from '../../sandbox/shared/loopback.ts';
import { startSandboxes } from '../../src/cli/sandbox-bootstrap.ts';
import { type Stack, startStack } from '../helpers/stack.ts';

/** Sends the path exactly as written (fetch would normalise `..` and `//` before sending). */
function raw(
  s: Stack,
  method: string,
  path: string,
  token: string,
): Promise<{ status: number; body: string }> {
  const url = new URL(s.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(method === 'GET' || method === 'DELETE' ? undefined : '{"faults":[{"kind":"error500"}]}');
  });
}

const spellings = (origin: string) => [
  '__sandbox/calls',
  '/__sandbox/faults',
  '__SANDBOX/faults',
  '__Sandbox/realism',
  '%5F%5Fsandbox/calls',
  '%5f%5fSANDBOX/faults',
  '_%5Fsandbox/reset',
  'services/data/v62.0/../../../__sandbox/calls',
  'crm/v3/./../../__sandbox/faults',
  'services//__sandbox/calls',
  '/__sandbox;x/calls',
  '__sandbox',
  `${origin}/__sandbox/realism`,
  `${origin}//__sandbox/faults`,
  `${origin}/%5F%5Fsandbox/faults`,
  encodeURIComponent(`${origin}/__sandbox/faults`),
];

test('the sandboxes’ control API is not reachable through pass-through, however it is spelled', async (t) => {
  const s = await startStack(t);
  const cases = [
    { token: s.tokens.salesforce, origin: s.sf.url, sandbox: s.sf.url },
    { token: s.tokens.hubspot, origin: 'https://api.hubapi.com', sandbox: s.hs.url },
  ];
  for (const { token, origin, sandbox } of cases) {
    const before = await (await fetch(`${sandbox}/__sandbox/calls`)).json();
    for (const target of spellings(origin)) {
      for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
        const answer = await raw(s, method, `/v1/proxy/${target}`, token);
        assert.equal(answer.status, 400, `${method} ${target}: ${answer.body.slice(0, 200)}`);
        const body = JSON.parse(answer.body) as { error: { code: string; message: string } };
        assert.equal(body.error.code, 'target_not_allowed', `${method} ${target}`);
        assert.match(body.error.message, /sandbox control API|dot segments|must not start with \/\//, target);
      }
    }
    // Nothing reached the control API: no fault scripted, counts not reset.
    const faults = (await (await fetch(`${sandbox}/__sandbox/faults`)).json()) as { faults: unknown[] };
    assert.deepEqual(faults.faults, []);
    const after = (await (await fetch(`${sandbox}/__sandbox/calls`)).json()) as { total: number };
    assert.ok(after.total >= (before as { total: number }).total, 'the call counts were not reset');
  }
  // The ordinary pass-through still works.
  const limits = await s.api('/v1/proxy/services/data/v62.0/limits', { method: 'GET' });
  assert.equal(limits.status, 200, limits.text.slice(0, 200));
});

test('loopback addresses are recognised', () => {
  for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) assert.equal(isLoopback(a), true, a);
  for (const a of ['192.0.2.2', '10.0.0.1', '::ffff:10.0.0.1', 'fd00::2', '', undefined]) {
    assert.equal(isLoopback(a), false, String(a));
  }
});

test('a sandbox listening on every interface serves its control API on loopback only', async (t) => {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address;
  if (external === undefined) {
    t.skip('no non-loopback IPv4 interface on this machine');
    return;
  }
  const sandboxes = await startSandboxes({ ports: { salesforce: 0, hubspot: 0 }, host: '0.0.0.0' });
  t.after(() => sandboxes.close());
  for (const sandbox of [sandboxes.salesforce, sandboxes.hubspot]) {
    const port = new URL(sandbox.url).port;
    const remote = await fetch(`http://${external}:${port}/__sandbox/calls`);
    assert.equal(remote.status, 403);
    const inject = await fetch(`http://${external}:${port}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ faults: [{ kind: 'error500' }] }),
    });
    assert.equal(inject.status, 403);
    const local = await fetch(`http://127.0.0.1:${port}/__sandbox/faults`);
    assert.deepEqual(await local.json(), { faults: [] });
    // The CRM routes still answer over the network (401: no token).
    const crm = await fetch(`http://${external}:${port}/services/data/v62.0/limits`);
    assert.notEqual(crm.status, 403);
  }
});
