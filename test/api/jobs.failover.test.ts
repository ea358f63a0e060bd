// Failover inside the lease: two instances on one PostgreSQL store, each on its own injected clock.
// Instance A takes an async job through the API and dies mid-call (its clock stops: it renews
// nothing more); instance B, whose clock goes on, resumes the job within the job lease
// (CRM_PROXY_JOB_LEASE_MS) of the death, measured on B's clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as pause } from 'node:timers/promises';
import { buildApp } from '../../src/app.ts';
import { createContext } from '../../src/context.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { startStack } from '../helpers/stack.ts';
import { waitFor } from '../helpers/wait.ts';
import { countWhere } from './sf-writes-helpers.ts';

const LEASE_MS = 30_000;

/** Moves the clocks on by `ms` in small steps, letting the store I/O each step starts finish. */
async function advance(clocks: ManualClock[], ms: number): Promise<void> {
  for (let done = 0; done < ms; done += 250) {
    for (const clock of clocks) await clock.advance(Math.min(250, ms - done));
    await pause(15);
  }
}

test('a dead instance’s job is resumed by another within the job lease of the death', async (t) => {
  const start = Date.now();
  const clockA = new ManualClock(start);
  const clockB = new ManualClock(start);
  const s = await startStack(t, {
    postgres: true,
    // A's held call outlasts the test on A's clock too.
    env: {
      CRM_PROXY_JOB_LEASE_MS: String(LEASE_MS),
      CRM_PROXY_CRM_TIMEOUT_MS: '600000',
      CRM_PROXY_RATE_LIMIT_PER_SECOND: '0',
    },
    overrides: { clock: clockA },
  });
  const b = await createContext(s.ctx.config, {
    clock: clockB,
    pgSchema: s.pgSchema,
    sandboxes: { salesforce: s.sf.credentials, hubspot: s.hs.credentials },
  });
  const appB = buildApp(b);
  await appB.listen({ port: 0, host: '127.0.0.1' });
  b.jobs.start();
  // Once checked, both clocks run on their own, so what still waits on them (B's run of the job,
  // A's stuck call, the closing of both instances) can end.
  const runFreely = () => {
    const ticking = setInterval(() => {
      void clockA.advance(1000);
      void clockB.advance(1000);
    }, 10);
    ticking.unref();
  };
  t.after(async () => {
    runFreely();
    await appB.close();
    await b.close();
  });

  // A's first CRM call reaches Salesforce and hangs there: A dies during it.
  s.sf.realism.update({ slowMs: 45_000 });
  s.sf.realism.script([{ kind: 'slow', match: 'collections.create', times: 1 }]);
  const records = Array.from({ length: 5 }, (_, i) => ({ Name: `Failover-${i}` }));
  const accepted = await s.api<{ id: string }>('/v1/object/insert/Account', {
    body: { data: records },
    headers: { prefer: 'respond-async', 'x-crm-proxy-interface': 'collections' },
  });
  assert.equal(accepted.status, 202, accepted.text);
  const id = accepted.body.id;
  await waitFor('A’s call to reach Salesforce', () => s.sf.accounting.count('collections.create') === 1);

  // A lives on a while (renewing its lease as it should), then dies: its clock stops.
  await advance([clockA, clockB], 10_500);
  const killedAt = clockB.now();
  const held = await s.store.jobs.find(id);
  assert.equal(held?.leaseOwner, s.ctx.jobs.owner, 'A held the job when it died');

  // B's clock goes on to exactly one job lease after the death, no further.
  await advance([clockB], LEASE_MS);
  assert.equal(clockB.now() - killedAt, LEASE_MS);
  await waitFor(
    'B to have claimed the job by then',
    async () => (await s.store.jobs.find(id))?.attempts === 2,
    { timeoutMs: 15_000 },
  );

  // B runs it to the end: every record written once (A's held call never reached the org).
  runFreely();
  await waitFor('the job to complete on B', async () => {
    const res = await fetch(
      `http://127.0.0.1:${(appB.server.address() as { port: number }).port}/v1/jobs/${id}`,
      {
        headers: { authorization: `Bearer ${s.tokens.salesforce}` },
      },
    );
    return ((await res.json()) as { state: string }).state === 'completed';
  });
  assert.equal(countWhere(s, 'Account', 'Name', 'Failover-'), 5);
  assert.equal((await s.store.jobs.find(id))?.attempts, 2, 'claimed by A, then by B alone');
  // A's held call is let go, so that closing A does not wait out the slow fault.
  s.sf.realism.endSlowCalls();
});
