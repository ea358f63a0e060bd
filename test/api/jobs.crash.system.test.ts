// Crash recovery: the Salesforce sandbox in its own process, the service as a child process on a
// SQLite file, SIGKILL mid-job, a restart, and the job completes with every record written once.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../helpers/wait.ts';
import type { RecordResult, WriteAnswer } from './sf-writes-helpers.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RECORDS = 10_000;
const DEADLINE = { timeoutMs: 180_000, intervalMs: 20 };

interface Job {
  id: string;
  state: string;
  interface: string | null;
  counts: { total: number; processed: number; succeeded: number; failed: number };
  crm_job_ids: string[];
}

interface Child {
  process: ChildProcess;
  lines: Interface;
  next(): Promise<string>;
}

function spawnChild(script: string, arg: unknown): Child {
  const child = spawn(process.execPath, [join(ROOT, script), JSON.stringify(arg)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  const queue: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  lines.on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else queue.push(line);
  });
  return {
    process: child,
    lines,
    next: () =>
      new Promise<string>((resolve, reject) => {
        const ready = queue.shift();
        if (ready !== undefined) return resolve(ready);
        waiting.push(resolve);
        child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
      }),
  };
}

async function killed(child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  const exited = new Promise((resolve) => child.process.once('exit', resolve));
  child.process.kill('SIGKILL');
  await exited;
}

interface Sandbox {
  url: string;
  credentials: Record<string, string>;
  /** Account records whose Name starts with `prefix`, read in the sandbox's own process. */
  accounts(prefix: string): Promise<{ total: number; distinct: number; ids: string[] }>;
  /** Drops the per-record latency: once the kill has landed mid-way, the rest need not be slow. */
  quick(): Promise<void>;
}

async function startSandbox(t: TestContext, realism: Record<string, number>): Promise<Sandbox> {
  const child = spawnChild('test/helpers/salesforce-sandbox-process.ts', realism);
  t.after(async () => {
    const exited = new Promise((resolve) => child.process.once('exit', resolve));
    child.process.stdin?.end();
    await exited;
  });
  const info = JSON.parse(await child.next()) as { url: string; credentials: Record<string, string> };
  return {
    ...info,
    async accounts(prefix) {
      child.process.stdin?.write(`${JSON.stringify({ count: prefix })}\n`);
      return JSON.parse(await child.next()) as { total: number; distinct: number; ids: string[] };
    },
    async quick() {
      const patched = await fetch(`${info.url}/__sandbox/realism`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ perRecordMs: 0 }),
      });
      assert.equal(patched.status, 200);
    },
  };
}

interface Service {
  child: Child;
  baseUrl: string;
  token: string;
  call<T>(
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{
    status: number;
    headers: Headers;
    body: T;
  }>;
}

async function startServiceProcess(t: TestContext, dataDir: string, sandbox: Sandbox): Promise<Service> {
  const child = spawnChild('test/helpers/service-process.ts', {
    dataDir,
    sandbox: { url: sandbox.url, credentials: sandbox.credentials },
  });
  t.after(() => killed(child));
  const { baseUrl, token } = JSON.parse(await child.next()) as { baseUrl: string; token: string };
  return {
    child,
    baseUrl,
    token,
    async call(path, init = {}) {
      const response = await fetch(`${baseUrl}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...init.headers,
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: (text === '' ? undefined : JSON.parse(text)) as never,
      };
    },
  };
}

async function results(service: Service, id: string): Promise<RecordResult[]> {
  const page = await service.call<{ data: RecordResult[]; next_cursor: string | null }>(
    `/v1/jobs/${id}/results?limit=10000`,
  );
  assert.equal(page.status, 200);
  assert.equal(page.body.next_cursor, null);
  return page.body.data;
}

/** Every record once in the sandbox, and each result a success naming one of them. */
async function assertExactlyOnce(sandbox: Sandbox, prefix: string, answered: RecordResult[]): Promise<void> {
  const held = await sandbox.accounts(prefix);
  assert.equal(held.total, RECORDS, 'the sandbox holds every record');
  assert.equal(held.distinct, RECORDS, 'and each one exactly once');
  assert.equal(answered.length, RECORDS, 'a result for every record');
  const failed = answered.filter((r) => !r.success);
  assert.deepEqual(failed.slice(0, 3), [], 'every record answered as written');
  assert.deepEqual(
    new Set(answered.map((r) => r.id)),
    new Set(held.ids),
    'the results name the written records',
  );
}

const accounts = (prefix: string) => Array.from({ length: RECORDS }, (_, i) => ({ Name: `${prefix}-${i}` }));

for (const via of ['collections', 'bulk2'] as const) {
  test(`SIGKILL mid-way through an async ${RECORDS}-record insert on ${via}: after a restart the job completes, each record once`, async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'crm-proxy-crash-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    // Slow enough per record that the job is caught mid-way; no assertion depends on timing.
    const sandbox = await startSandbox(t, { perRecordMs: via === 'bulk2' ? 0.5 : 3 });
    const first = await startServiceProcess(t, dataDir, sandbox);
    const prefix = `Crash-${via}`;
    const accepted = await first.call<Job>('/v1/object/insert/Account', {
      method: 'POST',
      body: { data: accounts(prefix) },
      headers: { prefer: 'respond-async', 'x-crm-proxy-interface': via },
    });
    assert.equal(accepted.status, 202);
    const id = accepted.body.id;
    let before: Job | undefined;
    await waitFor(
      'the job to be mid-way',
      async () => {
        before = (await first.call<Job>(`/v1/jobs/${id}`)).body;
        return before.counts.processed > 0 && before.counts.processed < RECORDS;
      },
      DEADLINE,
    );
    await killed(first.child);
    const during = await sandbox.accounts(prefix);
    assert.ok(during.total < RECORDS, 'killed before the end');
    await sandbox.quick();

    const second = await startServiceProcess(t, dataDir, sandbox);
    let job: Job | undefined;
    await waitFor(
      'the resumed job to finish',
      async () => {
        job = (await second.call<Job>(`/v1/jobs/${id}`)).body;
        return job.state !== 'running' && job.state !== 'queued';
      },
      DEADLINE,
    );
    assert.equal(job?.state, 'completed');
    assert.equal(job?.interface, via);
    assert.deepEqual(job?.counts, { total: RECORDS, processed: RECORDS, succeeded: RECORDS, failed: 0 });
    const calls = (await (await fetch(`${sandbox.url}/__sandbox/calls`)).json()) as {
      byKind: Record<string, number>;
    };
    if (via === 'bulk2') {
      assert.deepEqual(job?.crm_job_ids, before?.crm_job_ids, 'the Bulk job was followed, not created again');
      assert.equal(job?.crm_job_ids.length, 1);
      assert.equal(calls.byKind['bulk2.createJob'], 1);
    } else {
      // Calls in flight at the kill were reconciled: who the connection is, then what it created.
      assert.ok((calls.byKind['oauth.userinfo'] ?? 0) >= 1, JSON.stringify(calls.byKind));
    }
    await assertExactlyOnce(sandbox, prefix, await results(second, id));
  });
}

test(`a synchronous keyed ${RECORDS}-record insert killed mid-way: its retry after the restart gets the outcome, nothing written twice`, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'crm-proxy-crash-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const sandbox = await startSandbox(t, { perRecordMs: 3 });
  const first = await startServiceProcess(t, dataDir, sandbox);
  const prefix = 'Crash-sync';
  const body = { data: accounts(prefix) };
  const headers = { 'idempotency-key': 'crash-sync-1', 'x-crm-proxy-interface': 'collections' };
  const lost = first
    .call('/v1/object/insert/Account', { method: 'POST', body, headers })
    .catch((e: unknown) => e);
  await waitFor(
    'the request’s job to be mid-way',
    async () => {
      const list = await first.call<{ data: Job[] }>('/v1/jobs');
      const job = list.body.data[0];
      return job !== undefined && job.counts.processed > 0 && job.counts.processed < RECORDS;
    },
    DEADLINE,
  );
  await killed(first.child);
  assert.ok((await lost) instanceof Error, 'the client lost its answer');
  await sandbox.quick();

  const second = await startServiceProcess(t, dataDir, sandbox);
  let answer: { status: number; headers: Headers; body: WriteAnswer } | undefined;
  await waitFor(
    'the retry to get the outcome',
    async () => {
      const retry = await second.call<WriteAnswer>('/v1/object/insert/Account', {
        method: 'POST',
        body,
        headers,
      });
      if (retry.status === 409) return false;
      answer = retry;
      return true;
    },
    DEADLINE,
  );
  assert.equal(answer?.status, 200);
  assert.equal(answer?.headers.get('idempotent-replayed'), 'true');
  await assertExactlyOnce(sandbox, prefix, answer?.body.data ?? []);
});
