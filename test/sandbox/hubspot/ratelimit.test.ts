import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@hubspot/api-client';
import { startHubSpotSandbox } from '../../../sandbox/hubspot/index.ts';
import { RateLimiter, type RateLimitOptions } from '../../../sandbox/hubspot/ratelimit/index.ts';

/** The fields these tests read from 429 bodies and the rate-limit control route. */
interface Answer {
  status: string;
  message: string;
  category: string;
  correlationId: string;
  errorType: string;
  policyName: string;
  groupName: string;
  daily: number;
  usage: { dailyUsed: number };
}

const read = async (res: Response): Promise<Answer> => (await res.json()) as Answer;

const DAY = 86_400_000;

test('the 10-second window rolls: a slot frees exactly 10 s after the call that took it', () => {
  let now = 5 * DAY + 1000;
  const l = new RateLimiter({ perTenSeconds: 3, clock: () => now });
  const call = { app: 'oauth', search: false, daily: false };
  assert.equal(l.check(call).refused, null); // t = 0
  now += 4000;
  assert.equal(l.check(call).refused, null); // t = 4 s
  now += 4000;
  const third = l.check(call); // t = 8 s
  assert.equal(third.refused, null);
  assert.equal(third.headers['X-HubSpot-RateLimit-Remaining'], '0');
  now += 1999;
  assert.equal(l.check(call).refused, 'ten_secondly'); // t = 9.999 s
  now += 1;
  const freed = l.check(call); // t = 10 s: the first call left the window
  assert.equal(freed.refused, null);
  assert.equal(freed.headers['X-HubSpot-RateLimit-Max'], '3');
  assert.equal(freed.headers['X-HubSpot-RateLimit-Interval-Milliseconds'], '10000');
  // Each app has its own window.
  assert.equal(l.check({ ...call, app: 'private_app' }).refused, null);
});

test('the daily allowance counts private-app calls only and starts again at midnight UTC', () => {
  let now = 7 * DAY + DAY - 20_000;
  const l = new RateLimiter({ daily: 2, perTenSeconds: 100, clock: () => now });
  const pat = { app: 'private_app', search: false, daily: true };
  assert.equal(l.check(pat).headers['X-HubSpot-RateLimit-Daily-Remaining'], '1');
  assert.equal(l.check(pat).refused, null);
  const over = l.check(pat);
  assert.equal(over.refused, 'daily');
  assert.equal(over.headers['X-HubSpot-RateLimit-Daily'], '2');
  assert.equal(over.headers['X-HubSpot-RateLimit-Daily-Remaining'], '0');
  // OAuth calls neither draw on it nor carry its headers.
  const oauth = l.check({ app: 'oauth', search: false, daily: false });
  assert.equal(oauth.refused, null);
  assert.equal(oauth.headers['X-HubSpot-RateLimit-Daily'], undefined);
  now += 20_000; // midnight
  assert.equal(l.check(pat).refused, null);
});

test('search has its own per-second window outside the 10-second one, with daily headers only', () => {
  let now = 3 * DAY;
  const l = new RateLimiter({ searchPerSecond: 2, perTenSeconds: 1, clock: () => now });
  const search = { app: 'private_app', search: true, daily: true };
  assert.equal(l.check(search).refused, null);
  const second = l.check(search);
  assert.equal(second.refused, null);
  assert.deepEqual(Object.keys(second.headers).sort(), [
    'X-HubSpot-RateLimit-Daily',
    'X-HubSpot-RateLimit-Daily-Remaining',
  ]);
  assert.equal(l.check(search).refused, 'secondly');
  // Searches did not use the 10-second window.
  assert.equal(l.check({ app: 'private_app', search: false, daily: true }).refused, null);
  now += 1000;
  assert.equal(l.check(search).refused, null);
});

test('enabled: false counts and sends headers but refuses nothing', () => {
  const l = new RateLimiter({ perTenSeconds: 1, enabled: false, clock: () => 0 });
  const call = { app: 'oauth', search: false, daily: false };
  for (let i = 0; i < 5; i += 1) assert.equal(l.check(call).refused, null);
  assert.equal(l.check(call).headers['X-HubSpot-RateLimit-Remaining'], '0');
});

async function start(t: { after: (fn: () => Promise<void>) => void }, rateLimit: RateLimitOptions) {
  const hs = await startHubSpotSandbox({ port: 0, rateLimit });
  t.after(() => hs.close());
  return hs;
}

const frozen = () => 10 * DAY;

test('HTTP: 10-second limit answers HubSpot 429 body with policyName, headers as HubSpot sends them', async (t) => {
  const hs = await start(t, { perTenSeconds: 3, clock: frozen });
  const h = { authorization: `Bearer ${hs.credentials.privateAppToken}` };
  const remaining: (string | null)[] = [];
  for (let i = 0; i < 3; i += 1) {
    const res = await fetch(`${hs.url}/crm/v3/objects/contacts?limit=1`, { headers: h });
    assert.equal(res.status, 200);
    remaining.push(res.headers.get('x-hubspot-ratelimit-remaining'));
    assert.equal(res.headers.get('x-hubspot-ratelimit-max'), '3');
    assert.equal(res.headers.get('x-hubspot-ratelimit-daily'), '1000000');
    assert.equal(res.headers.get('x-hubspot-ratelimit-secondly'), '1');
  }
  assert.deepEqual(remaining, ['2', '1', '0']);
  const refused = await fetch(`${hs.url}/crm/v3/properties/contacts`, { headers: h });
  assert.equal(refused.status, 429);
  const body = await read(refused);
  assert.equal(body.status, 'error');
  assert.equal(body.message, 'You have reached your ten_secondly_rolling limit.');
  assert.equal(body.errorType, 'RATE_LIMIT');
  assert.equal(body.policyName, 'TEN_SECONDLY_ROLLING');
  assert.match(
    body.groupName,
    new RegExp(`^publicapi:private_app-api-calls-ten-secondly:\\d+:${hs.portal.portalId}$`),
  );
  assert.equal(refused.headers.get('x-hubspot-correlation-id'), body.correlationId);
  assert.equal(refused.headers.get('x-hubspot-ratelimit-remaining'), '0');
  // OAuth endpoints are not metered.
  const info = await fetch(`${hs.url}/oauth/v1/access-tokens/${hs.credentials.accessToken}`);
  assert.equal(info.status, 200);
  // The OAuth app has a window of its own, and no daily headers.
  const oauth = await fetch(`${hs.url}/crm/v3/objects/contacts?limit=1`, {
    headers: { authorization: `Bearer ${hs.credentials.accessToken}` },
  });
  assert.equal(oauth.status, 200);
  assert.equal(oauth.headers.get('x-hubspot-ratelimit-daily'), null);
  assert.equal(oauth.headers.get('x-hubspot-ratelimit-remaining'), '2');
});

test('HTTP: search is limited per second with the captured body and daily headers only', async (t) => {
  const hs = await start(t, { searchPerSecond: 5, clock: frozen });
  const search = () =>
    fetch(`${hs.url}/crm/v3/objects/contacts/search`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${hs.credentials.privateAppToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ limit: 1 }),
    });
  for (let i = 0; i < 5; i += 1) {
    const res = await search();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-hubspot-ratelimit-max'), null);
    assert.ok(res.headers.get('x-hubspot-ratelimit-daily-remaining') !== null);
  }
  const refused = await search();
  assert.equal(refused.status, 429);
  const body = await read(refused);
  assert.deepEqual(Object.keys(body).sort(), ['category', 'correlationId', 'message', 'status']);
  assert.equal(body.message, 'You have reached your secondly limit.');
  assert.equal(body.category, 'RATE_LIMITS');
  assert.equal(refused.headers.get('x-hubspot-ratelimit-interval-milliseconds'), null);
  assert.ok(refused.headers.get('x-hubspot-ratelimit-daily') !== null);
});

test('HTTP: daily limit answers the DAILY body; the control API shows usage and changes limits', async (t) => {
  const hs = await start(t, { daily: 2, clock: frozen });
  const h = { authorization: `Bearer ${hs.credentials.privateAppToken}` };
  for (let i = 0; i < 2; i += 1)
    assert.equal((await fetch(`${hs.url}/crm/v3/owners`, { headers: h })).status, 200);
  const refused = await fetch(`${hs.url}/crm/v3/owners`, { headers: h });
  assert.equal(refused.status, 429);
  const body = await read(refused);
  assert.equal(body.policyName, 'DAILY');
  assert.equal(body.message, 'You have reached your daily limit.');
  const state = await read(await fetch(`${hs.url}/__sandbox/rate-limits`));
  assert.equal(state.usage.dailyUsed, 2);
  const patched = await fetch(`${hs.url}/__sandbox/rate-limits`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ daily: 10 }),
  });
  assert.equal((await read(patched)).daily, 10);
  assert.equal((await fetch(`${hs.url}/crm/v3/owners`, { headers: h })).status, 200);
  await fetch(`${hs.url}/__sandbox/reset`, { method: 'POST' });
  assert.equal((await read(await fetch(`${hs.url}/__sandbox/rate-limits`))).usage.dailyUsed, 0);
});

test('HTTP: unauthenticated calls are answered 401 before any counting', async (t) => {
  const hs = await start(t, { perTenSeconds: 1, clock: frozen });
  for (let i = 0; i < 3; i += 1) assert.equal((await fetch(`${hs.url}/crm/v3/owners`)).status, 401);
  const ok = await fetch(`${hs.url}/crm/v3/owners`, {
    headers: { authorization: `Bearer ${hs.credentials.accessToken}` },
  });
  assert.equal(ok.status, 200);
});

/**
 * Sandbox time for the client's retries: it stands still, so the calls before a retry fall in one
 * window however slow the machine, and moves on by the pause the client announces. The client logs
 * `will retry … in [N] ms` with console.error and, in the same tick, sleeps with the global
 * setTimeout: that one sleep is recorded in `pauses` and made instant.
 */
function retryClock() {
  let now = 10 * DAY;
  const pauses: number[] = [];
  return {
    pauses,
    now: () => now,
    onRetryLogged: (message: unknown) => {
      const ms = Number(/in \[(\d+)\] ms/.exec(String(message))?.[1]);
      if (!Number.isFinite(ms)) return;
      now += ms;
      const realSetTimeout = globalThis.setTimeout;
      globalThis.setTimeout = ((fn: () => void, delay?: number) => {
        globalThis.setTimeout = realSetTimeout;
        pauses.push(delay ?? 0);
        return realSetTimeout(fn, 0);
      }) as typeof setTimeout;
    },
  };
}

// @hubspot/api-client retries a 429 only when `numberOfApiCallRetries` is set: on
// `policyName: TEN_SECONDLY_ROLLING` after 10 s × attempt, on the search body's message after
// 1 s × attempt (src/services/decorators/RetryDecorator.ts); DAILY is never retried. The option counts
// attempts, not retries: 2 means one retry.
test('@hubspot/api-client retries the search 429 after its 1 s pause and then succeeds', async (t) => {
  const clock = retryClock();
  const hs = await start(t, { searchPerSecond: 1, clock: clock.now });
  const client = new Client({
    accessToken: hs.credentials.accessToken,
    basePath: hs.url,
    numberOfApiCallRetries: 2,
  });
  const quiet = t.mock.method(console, 'error', clock.onRetryLogged);
  await client.crm.contacts.searchApi.doSearch({ limit: 1 });
  const second = await client.crm.contacts.searchApi.doSearch({ limit: 1 });
  assert.ok(Array.isArray(second.results));
  assert.ok(hs.accounting.count('objects.search') >= 3);
  assert.ok(quiet.mock.calls.some((c) => String(c.arguments[0]).includes('[429]')));
  assert.deepEqual(clock.pauses, [1_000]);
});

test('@hubspot/api-client retries TEN_SECONDLY_ROLLING after 10 s and never retries DAILY', async (t) => {
  const clock = retryClock();
  const hs = await start(t, { perTenSeconds: 1, daily: 1, clock: clock.now });
  const quiet = t.mock.method(console, 'error', clock.onRetryLogged);
  const oauth = new Client({
    accessToken: hs.credentials.accessToken,
    basePath: hs.url,
    numberOfApiCallRetries: 2,
  });
  await oauth.crm.owners.ownersApi.getPage();
  const page = await oauth.crm.owners.ownersApi.getPage(); // 429, then a retry 10 s later succeeds
  assert.ok(page.results.length > 0);
  const afterRetry = hs.accounting.count('owners.list');
  assert.ok(afterRetry >= 3);
  const pat = new Client({
    accessToken: hs.credentials.privateAppToken,
    basePath: hs.url,
    numberOfApiCallRetries: 3,
  });
  await pat.crm.owners.ownersApi.getPage();
  await assert.rejects(
    pat.crm.owners.ownersApi.getPage(),
    (e: { code?: number; body?: { policyName?: string } }) => {
      assert.equal(e.code, 429);
      assert.equal(e.body?.policyName, 'DAILY');
      return true;
    },
  );
  // One attempt for the refused call: DAILY is not retried although three attempts were allowed.
  assert.equal(hs.accounting.count('owners.list'), afterRetry + 2);
  assert.ok(quiet.mock.calls.length >= 1);
  assert.deepEqual(clock.pauses, [10_000]);
});
