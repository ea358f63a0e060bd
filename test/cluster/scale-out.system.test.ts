// Two instances on one PostgreSQL database and one Redis, nginx in front (scripts/local-cluster.ts):
// what the instances share while Redis answers, and what each keeps doing alone while it does not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ClusterInstance, type LocalCluster, startLocalCluster } from '../../scripts/local-cluster.ts';

// The burst holds the refresh storm (1 000 requests of one token); the limit checks send more.
const RATE = { perSecond: 5, burst: 1100 };
const LIMIT_REQUESTS = 1400;
const HUBSPOT_WINDOW = 60;

interface Answer<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

interface ErrorBody {
  error: { code: string; message: string };
}

async function call<T = unknown>(
  base: string,
  path: string,
  token: string,
  body: unknown,
  method = 'POST',
): Promise<Answer<T>> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text === '' ? undefined : JSON.parse(text)) as T,
    headers: response.headers,
  };
}

/** Runs the calls at most `width` at a time (more fresh connections than a listen backlog get reset). */
async function inParallel<T>(n: number, width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

/** Sum of one counter's samples whose labels include every `labels` pair, over every instance. */
async function metricSum(c: LocalCluster, name: string, labels: Record<string, string>): Promise<number> {
  let sum = 0;
  for (const instance of c.instances) {
    const text = await (await fetch(instance.metricsUrl)).text();
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${name}{`)) continue;
      if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}

async function readiness(url: string): Promise<{ status: string; details: Record<string, string> }> {
  const r = await fetch(`${url}/readyz`);
  assert.equal(r.status, 200, 'a degraded Redis never makes an instance unready');
  return (await r.json()) as { status: string; details: Record<string, string> };
}

async function waitForRedisState(c: LocalCluster, state: RegExp): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const all = await Promise.all(c.instances.map((i) => readiness(i.url)));
    if (all.every((r) => state.test(r.details['redis'] ?? ''))) return;
    assert.ok(Date.now() < deadline, `instances never reported redis ${state}: ${JSON.stringify(all)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A fresh API token of the connection, so each check starts from a full rate-limit bucket. */
async function freshToken(
  c: LocalCluster,
  crm: 'salesforce' | 'hubspot',
): Promise<{ token: string; id: string }> {
  const issued = await c.admin.auth.createToken({ connectionId: c.connectionIds[crm], name: 'cluster test' });
  assert.ok(issued.ok);
  return { token: issued.token, id: issued.record.id };
}

test('two instances behind nginx share PostgreSQL and Redis; with Redis stopped each falls back to its own limits', async (t) => {
  // The sandboxes' clock, moved on past HubSpot's 10-second window instead of waiting it out.
  let skippedMs = 0;
  const c = await startLocalCluster({
    sandboxes: { clock: () => Date.now() + skippedMs },
    env: {
      CRM_PROXY_RATE_LIMIT_PER_SECOND: String(RATE.perSecond),
      CRM_PROXY_RATE_LIMIT_BURST: String(RATE.burst),
      LOG_LEVEL: 'info',
      // Two cores shared with other test runs: a slow answer is not an outage here.
      CRM_PROXY_REDIS_TIMEOUT_MS: '2000',
    },
  });
  t.after(() => c.stop());
  assert.equal(c.instances.length, 2);
  const [a, b] = c.instances as [ClusterInstance, ClusterInstance];
  assert.ok(c.redis !== undefined);
  const redis = c.redis;
  const sf = c.sandboxes.salesforce;
  const hs = c.sandboxes.hubspot;
  const operator = await c.admin.operators.create('ops@cluster.test', 'a long enough password 1');
  const operatorKey = (await c.admin.operators.createKey(operator, 'cluster test')).key;

  const [accountId] = sf.org.insert('Account', [{ Name: 'Storm' }]).map((r) => r.id);
  assert.ok(accountId !== undefined);
  const contacts = hs.portal.types.resolve('contacts');
  assert.ok(contacts !== undefined);
  for (let i = 0; i < 10_000; i++) hs.portal.records.create(contacts, { email: `c${i}@cluster.test` });
  const contactIds = hs.portal.records.list('0-1').map((r) => r.id);
  assert.ok(contactIds.length >= 10_000);
  const limits = await fetch(`${hs.url}/__sandbox/rate-limits`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ perTenSeconds: HUBSPOT_WINDOW }),
  });
  assert.equal(limits.status, 200);

  /** 1 000 gets over nginx right after the access token expired: answers, and refresh grants. */
  async function refreshStorm(): Promise<{ statuses: Record<number, number>; refreshes: number }> {
    for (const instance of [a, b]) {
      // Warm: each instance holds the access token and the describe in memory.
      const warm = await call(instance.url, '/v1/object/get/Account', c.tokens.salesforce, {
        data: { ids: [accountId], fields: ['Name'] },
      });
      assert.equal(warm.status, 200);
    }
    assert.ok((await fetch(`${sf.url}/__sandbox/tokens/expire`, { method: 'POST' })).ok);
    sf.accounting.reset();
    const answers = await inParallel(1000, 200, () =>
      call<{ data: Array<{ Id: string } | null> }>(c.url, '/v1/object/get/Account', c.tokens.salesforce, {
        data: { ids: [accountId], fields: ['Name'] },
      }),
    );
    assert.ok(answers.every((x) => x.status !== 200 || x.body.data[0]?.Id === accountId));
    return {
      statuses: tally(answers.map((x) => x.status)),
      refreshes: sf.accounting.count('oauth.token.refresh_token'),
    };
  }

  let lastHubSpotRead = 0;
  /** 10 000 contacts in batch reads of 100 over nginx, all at once. */
  async function readContacts(ids: string[]) {
    const received429 = await metricSum(c, 'crm_proxy_crm_rate_limited_received_total', { crm: 'hubspot' });
    const answers = await inParallel(100, 100, (i) =>
      call<{ data: Array<{ id: string } | null> } & ErrorBody>(
        c.url,
        '/v1/object/get/contacts',
        c.tokens.hubspot,
        {
          data: { ids: ids.slice(i * 100, i * 100 + 100), fields: ['email'] },
        },
      ),
    );
    answers.forEach((x, i) => {
      if (x.status === 200)
        assert.deepEqual(
          x.body.data.map((r) => r?.id),
          ids.slice(i * 100, i * 100 + 100),
        );
    });
    lastHubSpotRead = Date.now();
    return {
      answers,
      statuses: tally(answers.map((x) => x.status)),
      hubspot429s:
        (await metricSum(c, 'crm_proxy_crm_rate_limited_received_total', { crm: 'hubspot' })) - received429,
    };
  }

  /** LIMIT_REQUESTS requests of one fresh token over nginx: how many got past the per-token limit. */
  async function tokenLimit(): Promise<{ passed: number; refused: number; seconds: number }> {
    const { token } = await freshToken(c, 'salesforce');
    const started = Date.now();
    // A body the schema refuses: the limit is taken before validation, and no CRM is called.
    const answers = await inParallel(LIMIT_REQUESTS, 200, () =>
      call(c.url, '/v1/object/get/Account', token, {}),
    );
    const seconds = (Date.now() - started) / 1000;
    const statuses = tally(answers.map((x) => x.status));
    assert.deepEqual(
      Object.keys(statuses).sort(),
      Object.keys(statuses)
        .filter((s) => s === '400' || s === '429')
        .sort(),
    );
    return { passed: statuses[400] ?? 0, refused: statuses[429] ?? 0, seconds };
  }

  /** A field added through A, then read through B (whose describe of Account was cached before). */
  async function addFieldThenUse(name: string): Promise<Answer<ErrorBody>> {
    const warm = await call(b.url, '/v1/object/get/Account', c.tokens.salesforce, {
      data: { ids: [accountId], fields: ['Name'] },
    });
    assert.equal(warm.status, 200);
    const added = await call(a.url, '/v1/object/add_custom_field/Account', c.tokens.salesforce, {
      data: { name, label: name, type: 'Text', length: 40 },
    });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    return call<ErrorBody>(b.url, '/v1/object/get/Account', c.tokens.salesforce, {
      data: { ids: [accountId], fields: ['Name', `${name}__c`] },
    });
  }

  /** A token used on B, revoked through A's admin API, then used on B again: the statuses B answers until 403. */
  async function revokeThroughA(): Promise<number[]> {
    const { token, id } = await freshToken(c, 'salesforce');
    assert.equal((await call(b.url, '/v1/describe/Account', token, {})).status, 200);
    const revoked = await call(a.url, `/v1/admin/tokens/${id}`, operatorKey, undefined, 'DELETE');
    assert.equal(revoked.status, 200);
    const seen: number[] = [];
    const deadline = Date.now() + 5_000;
    while (seen.at(-1) !== 403 && Date.now() < deadline) {
      seen.push((await call(b.url, '/v1/describe/Account', token, {})).status);
    }
    return seen;
  }

  await t.test('Redis up: every instance says so', async () => {
    await waitForRedisState(c, /^ok/);
  });

  await t.test('Redis up: a refresh storm over both instances makes exactly one refresh', async () => {
    const storm = await refreshStorm();
    assert.deepEqual(storm.statuses, { 200: 1000 });
    assert.equal(storm.refreshes, 1);
  });

  await t.test(
    'Redis up: 10 000 contacts through both, HubSpot never refuses, no client sees a 429',
    async (tt) => {
      const started = Date.now();
      const read = await readContacts(contactIds.slice(0, 10_000));
      tt.diagnostic(`${(Date.now() - started) / 1000} s, 429s from HubSpot ${read.hubspot429s}`);
      assert.deepEqual(read.statuses, { 200: 100 });
      assert.equal(read.hubspot429s, 0, 'both instances together stayed within the 10-second window');
    },
  );

  await t.test('Redis up: the per-token limit holds across both instances', async (tt) => {
    const r = await tokenLimit();
    tt.diagnostic(`${r.passed} of ${LIMIT_REQUESTS} passed in ${r.seconds} s (burst ${RATE.burst})`);
    // One bucket for both: the burst, plus what refilled while the requests ran.
    assert.ok(r.passed >= RATE.burst, `passed ${r.passed}`);
    assert.ok(
      r.passed <= RATE.burst + Math.ceil(r.seconds * RATE.perSecond) + 1,
      `passed ${r.passed} in ${r.seconds}s`,
    );
    assert.equal(r.passed + r.refused, LIMIT_REQUESTS);
  });

  await t.test(
    'Redis up: a custom field added through one instance is usable at once through the other',
    async () => {
      const used = await addFieldThenUse('Shared_Tier');
      assert.equal(used.status, 200, JSON.stringify(used.body));
    },
  );

  await t.test('Redis up: a token revoked through one instance is refused by the other at once', async () => {
    // Counted in Redis before the revocation answered: B's very next request sees it.
    assert.deepEqual(await revokeThroughA(), [403]);
  });

  const linesOf = async (text: string) =>
    Promise.all([a, b].map(async (i) => (await i.readLog()).split(text).length - 1));
  // Log lines reach the file in batches (at most a quarter second late): poll up to a deadline.
  const linesReach = async (text: string, expected: number[]) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const seen = await linesOf(text);
      if (seen.every((n, i) => n === expected[i]) || Date.now() > deadline) return seen;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const degradedBefore = await linesOf('redis: degraded');
  await redis.stop();

  await t.test('Redis down: both stay ready and say "degraded"', async () => {
    await waitForRedisState(c, /^degraded, using per-instance limits$/);
  });

  await t.test(
    'Redis down: each instance paces HubSpot alone; refusals are retried, clients get their records',
    async (tt) => {
      // The reads above leave HubSpot's 10-second window (on the sandbox's clock).
      skippedMs += Math.max(0, lastHubSpotRead + 10_500 - Date.now());
      const read = await readContacts(contactIds.slice(0, 10_000));
      tt.diagnostic(`statuses ${JSON.stringify(read.statuses)}, 429s from HubSpot ${read.hubspot429s}`);
      // Each instance alone keeps its own calls under the window, so the two together may exceed it.
      for (const x of read.answers) {
        if (x.status === 429) {
          assert.equal(x.body.error.code, 'crm_rate_limited');
          assert.ok(x.headers.get('retry-after'));
        } else assert.equal(x.status, 200);
      }
    },
  );

  await t.test(
    'Redis down: the refresh storm still makes exactly one refresh (the store’s lock)',
    async () => {
      const storm = await refreshStorm();
      assert.deepEqual(storm.statuses, { 200: 1000 });
      assert.equal(storm.refreshes, 1);
    },
  );

  await t.test('Redis down: the per-token limit is per instance (twice the burst over two)', async (tt) => {
    const r = await tokenLimit();
    tt.diagnostic(`${r.passed} of ${LIMIT_REQUESTS} passed in ${r.seconds} s (burst ${RATE.burst})`);
    assert.ok(r.passed > RATE.burst, `passed ${r.passed}: more than one instance's burst`);
    assert.ok(
      r.passed <= 2 * RATE.burst + 2 * Math.ceil(r.seconds * RATE.perSecond) + 2,
      `passed ${r.passed}`,
    );
  });

  let missedField: string | undefined;
  await t.test(
    'Redis down: the other instance keeps its cached describe (until its TTL) and names the field unknown',
    async () => {
      const used = await addFieldThenUse('Outage_Tier');
      assert.equal(used.status, 400);
      assert.match(used.body.error.message, /Outage_Tier__c/);
      missedField = 'Outage_Tier__c';
    },
  );

  await t.test(
    'Redis down: revocation still reaches the other instance at once (PostgreSQL NOTIFY)',
    async () => {
      // NOTIFY reaches B a moment after A answered: B refuses the token once it has (milliseconds).
      const seen = await revokeThroughA();
      assert.equal(seen.at(-1), 403, `B answered ${seen.join(', ')}`);
    },
  );

  await t.test(
    'Redis down: each instance logged the change once, however many requests ran meanwhile',
    async () => {
      assert.deepEqual(
        await linesReach(
          'redis: degraded',
          degradedBefore.map((n) => n + 1),
        ),
        degradedBefore.map((n) => n + 1),
      );
    },
  );

  const connectedBefore = await linesOf('redis: connected');
  await redis.start();

  await t.test(
    'Redis back: both share again, and caches that may have missed notices are dropped',
    async () => {
      await waitForRedisState(c, /^ok/);
      assert.deepEqual(
        await linesReach(
          'redis: connected',
          connectedBefore.map((n) => n + 1),
        ),
        connectedBefore.map((n) => n + 1),
      );
      assert.ok(missedField !== undefined);
      const used = await call(b.url, '/v1/object/get/Account', c.tokens.salesforce, {
        data: { ids: [accountId], fields: ['Name', missedField] },
      });
      assert.equal(used.status, 200, JSON.stringify(used.body));
    },
  );
});
