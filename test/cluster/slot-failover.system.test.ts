// Two instances on PostgreSQL and a Redis of the test's own: an instance killed (SIGKILL) while it
// holds every concurrency place of a connection stops renewing their leases, so the surviving
// instance gets a place within one lease, not after the longest call the dead one might have made.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { type ClusterInstance, startLocalCluster } from '../../scripts/local-cluster.ts';

const PLACES = 4;
/** Longer than the test: the dead instance's calls never answer while it matters. */
const HELD_MS = 30_000;

async function get(base: string, token: string, id: string): Promise<number> {
  const response = await fetch(`${base}/v1/object/get/Account`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ data: { ids: [id], fields: ['Name'] } }),
  });
  await response.arrayBuffer();
  return response.status;
}

test('a killed instance holding all of a connection’s places frees them within one lease', async (t) => {
  const c = await startLocalCluster({
    env: {
      CRM_PROXY_CONNECTION_CONCURRENCY: String(PLACES),
      CRM_PROXY_CRM_TIMEOUT_MS: '120000',
      CRM_PROXY_REDIS_TIMEOUT_MS: '2000',
      LOG_LEVEL: 'warn',
    },
  });
  t.after(() => c.stop());
  const [a, b] = c.instances as [ClusterInstance, ClusterInstance];
  assert.ok(c.redis !== undefined);
  const redis = new Redis(c.redis.url);
  redis.on('error', () => {});
  t.after(() => redis.disconnect());
  const sf = c.sandboxes.salesforce;
  const [account] = sf.org.insert('Account', [{ Name: 'Failover' }]).map((r) => String(r.id));
  assert.ok(account !== undefined);
  // Warm both instances (describe cached, tokens fresh) so only the held calls remain.
  assert.equal(await get(a.url, c.tokens.salesforce, account), 200);
  assert.equal(await get(b.url, c.tokens.salesforce, account), 200);

  sf.realism.update({ slowMs: HELD_MS });
  sf.realism.script([{ kind: 'slow', match: 'collections.retrieve', times: PLACES }]);
  const held = Array.from({ length: PLACES }, () => get(a.url, c.tokens.salesforce, account).catch(() => 0));
  const key = `crm-proxy:place:connection:${c.connectionIds.salesforce}`;
  const deadline = Date.now() + 30_000;
  while ((await redis.zcard(key)) < PLACES) {
    assert.ok(Date.now() < deadline, 'instance A never held every place');
    await new Promise((r) => setTimeout(r, 50));
  }
  while (sf.realism.pendingFaults().length > 0) {
    assert.ok(Date.now() < deadline, 'the held calls never all reached the sandbox');
    await new Promise((r) => setTimeout(r, 50));
  }

  await a.kill();
  const killedAt = Date.now();
  assert.equal(await get(b.url, c.tokens.salesforce, account), 200);
  const failoverMs = Date.now() - killedAt;
  t.diagnostic(
    `failover after kill -9: the survivor's 1-record get answered ${failoverMs} ms after the kill`,
  );
  // The old five-minute lease would hold it for 300 s; one lease is 10 s (the bound is loose: busy cores).
  assert.ok(failoverMs < HELD_MS - 5_000, `the survivor waited ${failoverMs} ms`);
  await Promise.all(held);
});
