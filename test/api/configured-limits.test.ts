// The limits set through the environment hold through the HTTP API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';

interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown>[] };
}

test('CRM_PROXY_RATE_LIMIT_PER_SECOND and _BURST set the per-token limit', async (t) => {
  // Service time stands still: the bucket does not refill between the calls, however slow the machine.
  const now = Date.now();
  const s = await startStack(t, {
    env: { CRM_PROXY_RATE_LIMIT_PER_SECOND: '1', CRM_PROXY_RATE_LIMIT_BURST: '3' },
    overrides: { clock: { now: () => now } },
  });
  for (let i = 0; i < 3; i++) assert.equal((await s.api('/v1/describe')).status, 200, `call ${i + 1}`);
  const limited = await s.api<ErrorBody>('/v1/describe');
  assert.equal(limited.status, 429);
  assert.equal(limited.body.error.code, 'rate_limited');
  assert.equal(limited.headers.get('retry-after'), '1');
});

test('CRM_PROXY_RATE_LIMIT_PER_SECOND=0 turns the limit off', async (t) => {
  const now = Date.now();
  const s = await startStack(t, {
    env: { CRM_PROXY_RATE_LIMIT_PER_SECOND: '0' },
    overrides: { clock: { now: () => now } },
  });
  assert.equal(s.ctx.rateLimiter, null);
  const answers = await Promise.all(Array.from({ length: 30 }, () => s.api('/v1/describe')));
  assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
});

test('CRM_PROXY_BODY_LIMIT_BYTES sets the largest JSON body', async (t) => {
  const s = await startStack(t, { env: { CRM_PROXY_BODY_LIMIT_BYTES: '4096' } });
  const records = Array.from({ length: 40 }, (_, i) => ({
    Name: `Account ${i}`,
    Description: 'x'.repeat(100),
  }));
  const answer = await s.api<ErrorBody>('/v1/object/insert/Account', { body: { data: records } });
  assert.equal(answer.status, 413);
  assert.equal(answer.body.error.code, 'body_too_large');
  assert.deepEqual(answer.body.error.details, [{ limit_bytes: 4096 }]);
  const small = await s.api('/v1/object/insert/Account', { body: { data: [{ Name: 'Small' }] } });
  assert.equal(small.status, 200, small.text);
});

test('CRM_PROXY_CONNECTION_CONCURRENCY bounds the parallel CRM calls of one connection', async (t) => {
  const s = await startStack(t, {
    env: { CRM_PROXY_CONNECTION_CONCURRENCY: '2' },
    // Each CRM call takes a while, so parallel requests would overlap at the CRM without the bound.
    realism: { latencyMs: 150 },
  });
  const ids = s.sf.org
    .insert(
      'Account',
      Array.from({ length: 8 }, (_, i) => ({ Name: `C${i}` })),
    )
    .map((r) => r.id);
  // Warm up: access token and describe cached, so what follows is one CRM call per request.
  assert.equal((await s.api('/v1/object/get/Account', { body: { data: { ids: [ids[0]] } } })).status, 200);
  let inFlight = 0;
  let peak = 0;
  s.sf.app.server.on('request', (req, res) => {
    if (!(req.url ?? '').startsWith('/services/data/')) return;
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    res.once('close', () => {
      inFlight -= 1;
    });
  });
  const answers = await Promise.all(
    ids.map((id) => s.api('/v1/object/get/Account', { body: { data: { ids: [id], fields: ['Name'] } } })),
  );
  assert.deepEqual(
    answers.map((a) => a.status),
    ids.map(() => 200),
  );
  assert.ok(peak >= 1 && peak <= 2, `at most 2 CRM calls at once, saw ${peak}`);
});

test('CRM_PROXY_CRM_TIMEOUT_MS bounds a call to a CRM that does not answer', async (t) => {
  const s = await startStack(t, {
    env: { CRM_PROXY_CRM_TIMEOUT_MS: '1000', CRM_PROXY_CRM_MAX_ATTEMPTS: '1' },
    // Every sandbox answer takes far longer than the configured deadline.
    realism: { latencyMs: 4000 },
  });
  const answer = await s.api<ErrorBody>('/v1/describe');
  assert.equal(answer.status, 502, answer.text);
  assert.equal(answer.body.error.code, 'crm_unreachable');
  assert.match(answer.body.error.message, /time/i);
});
