// Two replicas from the image on one PostgreSQL database and one Redis: tokens and revocations
// cross between them at once, and a replica killed mid-job leaves its job to the other.
import { randomUUID } from 'node:crypto';
import { docker } from './docker.ts';
import { type CheckRun, connectSandbox, createToken, type Service, startService } from './service.ts';
import { call, expect, seconds, step, until } from './steps.ts';

const RECORDS = 10_000;

interface Job {
  id: string;
  state: string;
  interface: string | null;
  counts: { total: number; processed: number; succeeded: number; failed: number };
}

export interface SharedState {
  databaseUrl: string;
  redisUrl: string;
}

export async function checkReplicas(run: CheckRun, shared: SharedState): Promise<void> {
  const env = { DATABASE_URL: shared.databaseUrl, REDIS_URL: shared.redisUrl };
  let a: Service | undefined;
  let b: Service | undefined;
  await step(
    'two replicas start on PostgreSQL + Redis',
    async () => {
      a = await startService(run, 'replica-a', env);
      b = await startService(run, 'replica-b', env);
      return `${a.url} and ${b.url}`;
    },
    true,
  );
  if (a === undefined || b === undefined) return;
  const [ra, rb] = [a, b];
  let connectionId = '';
  await step('a token made through A works on B', async () => {
    connectionId = await connectSandbox(run, ra);
    const made = await createToken(ra, connectionId);
    const onB = await call(`${rb.url}/v1/describe/Account`, made.token, { method: 'POST' });
    expect(onB.status === 200, `B answered ${onB.status}`);
    const revoked = await rb.cli(['tokens', 'revoke', made.id]);
    const onA = await call(`${ra.url}/v1/describe/Account`, made.token, { method: 'POST' });
    const code = (onA.body as { error?: { code?: string } } | undefined)?.error?.code;
    expect(
      onA.status === 403 && code === 'revoked_token',
      `A answered ${onA.status} ${code} to the token B revoked; B said: ${revoked}`,
    );
    return 'describe through B 200; after `tokens revoke` through B, the next request on A 403 revoked_token';
  });
  await step(
    `SIGKILL of a replica mid-way through an async ${RECORDS}-record job: the other finishes it`,
    () => killMidJob(run, ra, rb, connectionId),
  );
}

async function killMidJob(run: CheckRun, a: Service, b: Service, connectionId: string): Promise<string> {
  const { token } = await createToken(b, connectionId);
  const prefix = `${run.prefix}-job`;
  const data = Array.from({ length: RECORDS }, (_, i) => ({ Name: `${prefix}-${i}` }));
  const accepted = await call(`${a.url}/v1/object/insert/Account`, token, {
    method: 'POST',
    body: { data },
    headers: { prefer: 'respond-async', 'idempotency-key': randomUUID(), 'x-crm-proxy-interface': 'bulk2' },
  });
  expect(accepted.status === 202, `the insert answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
  const id = (accepted.body as Job).id;
  const job = async () => (await call(`${b.url}/v1/jobs/${id}`, token)).body as Job;
  // Mid-way: the job runs on A and the CRM holds some of its records, not all.
  const held = () => {
    const found = run.sandbox.org.query(`SELECT Id, Name FROM Account WHERE Name LIKE '${prefix}-%'`, {});
    return (found.records as unknown as Array<{ Name: string }>).map((r) => r.Name);
  };
  const written = await until(
    'the job to be mid-way',
    async () => {
      const seen = await job();
      const count = held().length;
      return seen.state === 'running' && count > 0 && count < RECORDS ? count : undefined;
    },
    120_000,
    20,
  );
  const killedAt = Date.now();
  const killed = await docker(['kill', '--signal', 'KILL', a.name]);
  expect(killed.code === 0, `docker kill failed: ${killed.stderr}`);
  const done = await until(
    'the job to end on B',
    async () => {
      const seen = await job();
      return seen.state === 'running' || seen.state === 'queued' ? undefined : seen;
    },
    300_000,
    250,
  );
  const failoverMs = Date.now() - killedAt;
  expect(done.state === 'completed', `the job ended ${done.state}: ${JSON.stringify(done.counts)}`);
  expect(
    done.counts.succeeded === RECORDS && done.counts.failed === 0,
    `counts ${JSON.stringify(done.counts)}`,
  );
  const names = held();
  const distinct = new Set(names).size;
  expect(names.length === RECORDS, `the CRM holds ${names.length} records, not ${RECORDS}`);
  expect(distinct === RECORDS, `${names.length - distinct} records written twice`);
  return `killed A with ${written} of ${RECORDS} records in the CRM (${done.interface}); B completed the job ${seconds(failoverMs)} after the kill; the CRM holds ${names.length} records, ${distinct} distinct`;
}
