import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, startStack } from '../helpers/stack.ts';
import { waitFor } from '../helpers/wait.ts';

interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
}

async function setLimits(s: Stack, limits: Record<string, number>): Promise<void> {
  const response = await fetch(`${s.hs.url}/__sandbox/rate-limits`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(limits),
  });
  assert.equal(response.status, 200);
}

/** Counts the 429s HubSpot sent to the service. */
function count429(s: Stack): { n: number } {
  const seen = { n: 0 };
  s.ctx.client.addHook((event) => {
    if (event.status === 429) seen.n += 1;
  });
  return seen;
}

function contactIds(s: Stack, n: number): string[] {
  return s.hs.portal.records
    .list('0-1')
    .slice(0, n)
    .map((r) => r.id);
}

test('a burst of requests is paced under the 10-second window: HubSpot never refuses, every request answers', async (t) => {
  const s = await startStack(t);
  await setLimits(s, { perTenSeconds: 12 });
  const refusals = count429(s);
  const ids = contactIds(s, 20);
  // 1 property-list call + 20 batch reads: more than one window's worth. The service and the
  // sandbox share the stack's clock, moved on here: the next window comes without a real wait.
  const answers = await s.clock.fastForward(
    Promise.all(
      ids.map((id) =>
        s.api<{ data: Array<{ id: string } | null> }>('/v1/object/get/contacts', {
          token: s.tokens.hubspot,
          body: { data: { ids: [id], fields: ['email'] } },
        }),
      ),
    ),
  );
  assert.deepEqual(
    answers.map((a) => a.status),
    ids.map(() => 200),
  );
  answers.forEach((a, i) => {
    assert.equal(a.body.data[0]?.id, ids[i]);
  });
  assert.equal(refusals.n, 0, 'no 429 from HubSpot');
  assert.equal(s.hs.accounting.count('objects.batch.read'), 20);
});

test("another client drained the window: HubSpot's 429 is retried once there is room, the client gets 200", async (t) => {
  const s = await startStack(t);
  await setLimits(s, { perTenSeconds: 5 });
  const refusals = count429(s);
  for (let i = 0; i < 5; i++) {
    const direct = await fetch(`${s.hs.url}/crm/v3/objects/contacts?limit=1`, {
      headers: { authorization: `Bearer ${s.hs.credentials.accessToken}` },
    });
    assert.equal(direct.status, 200);
  }
  const [id] = contactIds(s, 1);
  // HubSpot refuses the first call; then the retry waits for the window to roll over on the
  // clock the service and the sandbox share, moved on rather than waited for.
  const pending = s.api<{ data: Array<{ id: string } | null> }>('/v1/object/get/contacts', {
    token: s.tokens.hubspot,
    body: { data: { ids: [id], fields: ['email'] } },
  });
  await waitFor('the first 429', () => refusals.n >= 1);
  const answer = await s.clock.fastForward(pending);
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.equal(answer.body.data[0]?.id, id);
  assert.ok(refusals.n >= 1, 'HubSpot refused at least once');
});

test('when HubSpot keeps refusing (daily allowance spent) the client gets 429 crm_rate_limited with Retry-After', async (t) => {
  const s = await startStack(t);
  const created = await s.ctx.connections.create({
    provider: 'hubspot',
    label: 'private app',
    instanceUrl: null,
    apiBaseUrl: s.hs.url,
    sandbox: true,
    credentials: { kind: 'private_app', token: s.hs.credentials.privateAppToken },
  });
  assert.ok(created.ok);
  const token = await s.ctx.auth.createToken({ connectionId: created.connection.id });
  assert.ok(token.ok);
  await setLimits(s, { daily: 2 });
  const [a, b] = contactIds(s, 2);
  // The property list and one batch read use up the allowance.
  const first = await s.api('/v1/object/get/contacts', {
    token: token.token,
    body: { data: { ids: [a], fields: ['email'] } },
  });
  assert.equal(first.status, 200, first.text.slice(0, 300));
  const second = await s.api<ErrorBody>('/v1/object/get/contacts', {
    token: token.token,
    body: { data: { ids: [b], fields: ['email'] } },
  });
  assert.equal(second.status, 429);
  assert.equal(second.body.error.code, 'crm_rate_limited');
  assert.match(second.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  const crm = second.body.error.details[0]?.['crm_error'] as { policyName?: string } | undefined;
  assert.equal(crm?.policyName, 'DAILY');
  // From then on the service knows the day's allowance is spent: refused without a call to HubSpot.
  let calls = 0;
  s.ctx.client.addHook(() => {
    calls += 1;
  });
  const third = await s.api<ErrorBody>('/v1/object/get/contacts', {
    token: token.token,
    body: { data: { ids: [a], fields: ['email'] } },
  });
  assert.equal(third.status, 429);
  assert.equal(third.body.error.code, 'crm_rate_limited');
  assert.equal((third.body.error.details[0]?.['crm_error'] as { policyName?: string })?.policyName, 'DAILY');
  assert.equal(calls, 0, 'no call reached HubSpot');
});
