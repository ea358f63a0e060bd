import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FIELD_TYPES_BY_TYPE as SANDBOX_MATRIX } from '../../sandbox/hubspot/properties/rules.ts';
import { RateLimiter } from '../../sandbox/hubspot/ratelimit/limiter.ts';
import { ApiError } from '../../src/errors/index.ts';
import { LocalSharedState, type SharedMode } from '../../src/lib/shared-state.ts';
import type { CrmSession } from '../../src/providers/adapter.ts';
import type { OutboundResponse } from '../../src/providers/client/types.ts';
import { hubspotCall, PerConnectionState, paced } from '../../src/providers/hubspot/connection-state.ts';
import { HubSpotPacer } from '../../src/providers/hubspot/pacing.ts';
import { FIELD_TYPES_BY_TYPE } from '../../src/providers/hubspot/profile.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { answer } from '../helpers/outbound.ts';

test("the service's type/fieldType matrix is the sandbox's", () => {
  const sort = (m: Readonly<Record<string, readonly string[]>>) =>
    Object.fromEntries(
      Object.entries(m)
        .map(([k, v]) => [k, [...v].sort()])
        .sort(),
    );
  assert.deepEqual(sort(FIELD_TYPES_BY_TYPE), sort(SANDBOX_MATRIX));
});

test("paced calls never exceed a sliding-window limiter's allowance, whatever the burst", async () => {
  // HubSpot's limiter as the sandbox implements it, 4 calls per window, fed by 30 concurrent callers.
  // Time is the test's own clock: the pacer's waits and each call's 2 ms take no real time.
  const clock = new ManualClock();
  const pacer = new HubSpotPacer({ clock, max: 4, windowMs: 150, probe: false });
  // The sandbox's window is 10 s: scale time so that 150 ms of ours is its 10 s.
  let refused = 0;
  const started = clock.now();
  const scaled = new RateLimiter({
    perTenSeconds: 4,
    clock: () => started + (clock.now() - started) * (10_000 / 150),
  });
  await clock.run(
    Promise.all(
      Array.from({ length: 30 }, async () => {
        await pacer.acquire('standard');
        const decision = scaled.check({ app: 'oauth', search: false, daily: false });
        if (decision.refused !== null) refused += 1;
        await clock.sleep(2);
        pacer.done('standard', answer(200));
      }),
    ),
  );
  assert.equal(refused, 0);
});

test('the window follows the rate-limit headers and keeps slots used by other clients free', async () => {
  const pacer = new HubSpotPacer({ clock: new ManualClock() });
  await pacer.acquire('standard');
  pacer.done(
    'standard',
    answer(200, {
      'x-hubspot-ratelimit-max': '190',
      'x-hubspot-ratelimit-interval-milliseconds': '10000',
      // 40 calls were counted although this was our only one: 39 belong to someone else.
      'x-hubspot-ratelimit-remaining': '150',
    }),
  );
  assert.deepEqual(pacer.state(), { max: 190, windowMs: 10_000, inWindow: 1, foreign: 39 });
});

test('the first call goes alone until an answer tells the limit', async () => {
  const pacer = new HubSpotPacer({ clock: new ManualClock() });
  await pacer.acquire('standard');
  let second = false;
  const waiting = pacer.acquire('standard').then(() => {
    second = true;
  });
  await new Promise((r) => setImmediate(r));
  assert.equal(second, false);
  pacer.done('standard', answer(200, { 'x-hubspot-ratelimit-max': '10' }));
  await waiting;
  assert.equal(second, true);
  pacer.done('standard', answer(200));
});

function scriptedSession(answers: OutboundResponse[]): CrmSession & { calls: number } {
  const session = {
    connectionId: 'conn_test',
    baseUrl: 'http://hubspot.test',
    calls: 0,
    async send() {
      const next = answers[session.calls] ?? answers[answers.length - 1];
      session.calls += 1;
      assert.ok(next);
      return next;
    },
  };
  return session;
}

const budget = { maxAttempts: 3, maxRetryWaitMs: 100, fallbackWaitMs: 5 };
const call = { method: 'GET' as const, path: '/crm/v3/objects/contacts', idempotent: true, label: 'test' };

test('a 429 is retried after the wait HubSpot indicates, then answered', async () => {
  const session = scriptedSession([
    answer(
      429,
      {},
      { policyName: 'TEN_SECONDLY_ROLLING', message: 'You have reached your ten_secondly_rolling limit.' },
    ),
    answer(200, {}, { ok: true }),
  ]);
  const clock = new ManualClock();
  const pacer = new HubSpotPacer({ clock, probe: false });
  const response = await clock.run(hubspotCall(session, pacer, clock, call, budget));
  assert.equal(response.status, 200);
  assert.equal(session.calls, 2);
});

test('when the retry budget is spent the client gets our 429 with Retry-After and HubSpot’s body', async () => {
  const session = scriptedSession([
    answer(429, { 'retry-after': '0.01' }, { policyName: 'TEN_SECONDLY_ROLLING' }),
  ]);
  const clock = new ManualClock();
  const pacer = new HubSpotPacer({ clock, probe: false });
  await assert.rejects(clock.run(hubspotCall(session, pacer, clock, call, budget)), (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 429);
    assert.equal(error.code, 'crm_rate_limited');
    assert.match(error.headers['retry-after'] ?? '', /^\d+$/);
    const crm = error.details[0]?.['crm_error'] as { policyName?: string } | undefined;
    assert.equal(crm?.policyName, 'TEN_SECONDLY_ROLLING');
    return true;
  });
  assert.equal(session.calls, budget.maxAttempts);
});

test('the daily limit is not retried', async () => {
  const session = scriptedSession([
    answer(429, {}, { policyName: 'DAILY', message: 'You have reached your daily limit.' }),
  ]);
  const clock = new ManualClock();
  const pacer = new HubSpotPacer({ clock, probe: false });
  await assert.rejects(clock.run(hubspotCall(session, pacer, clock, call, budget)), (error: unknown) => {
    assert.ok(error instanceof ApiError && error.code === 'crm_rate_limited');
    assert.ok(Number(error.headers['retry-after']) >= 1);
    return true;
  });
  assert.equal(session.calls, 1);
  // Until the day is over, the connection's calls are refused without being sent.
  await assert.rejects(clock.run(hubspotCall(session, pacer, clock, call, budget)), (error: unknown) => {
    assert.ok(error instanceof ApiError && error.code === 'crm_rate_limited');
    const crm = error.details[0]?.['crm_error'] as { policyName?: string } | undefined;
    assert.equal(crm?.policyName, 'DAILY');
    return true;
  });
  assert.equal(session.calls, 1);
  await clock.advance(86_400_000);
  assert.equal(pacer.dailySpent(), undefined, 'a new day, a new allowance');
});

test('a daily allowance found used up on one instance is known to the others through the shared state', () => {
  // Two instances' connection states on one notice bus (what Redis pub/sub is across instances).
  class Bus extends LocalSharedState {
    override mode(): SharedMode {
      return 'shared';
    }
  }
  const clock = new ManualClock();
  const bus = new Bus(() => clock.now());
  const a = new PerConnectionState({ clock, shared: bus, pacer: { probe: false } });
  const b = new PerConnectionState({ clock, shared: bus, pacer: { probe: false } });
  const until = clock.now() + 60_000;
  a.of('conn-1').pacer.spentForTheDay(until, { policyName: 'DAILY' });
  assert.deepEqual(b.of('conn-1').pacer.dailySpent(), { until, crmError: { policyName: 'DAILY' } });
  assert.equal(b.of('conn-2').pacer.dailySpent(), undefined, 'only that connection');
});

test('calls the caller sends itself (pass-through) take slots too, search in its own window', async () => {
  const clock = new ManualClock();
  const pacer = new HubSpotPacer({ clock, probe: false });
  const head = (status: number, headers: Record<string, string>) => ({ status, headers });
  const got = await paced(
    pacer,
    clock,
    '/crm/v3/objects/contacts',
    async () => head(200, { 'x-hubspot-ratelimit-max': '7', 'x-hubspot-ratelimit-remaining': '6' }),
    (a) => a,
  );
  assert.equal(got.status, 200);
  assert.deepEqual(pacer.state(), { max: 7, windowMs: 10_000, inWindow: 1, foreign: 0 });
  await paced(
    pacer,
    clock,
    '/crm/v3/objects/contacts/search',
    async () => head(200, {}),
    (a) => a,
  );
  assert.equal(pacer.state('search').inWindow, 1);
  assert.equal(pacer.state().inWindow, 1);
});
