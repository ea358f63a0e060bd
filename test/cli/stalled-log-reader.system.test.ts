// `crm-proxy serve` whose stdout reader stops reading (a full pipe, a full socket) or goes away
// (EPIPE): the service keeps answering, /healthz included, counts the log lines it had to drop in
// crm_proxy_log_lines_dropped_total, and exits cleanly on SIGTERM.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort } from '../../scripts/local-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/**
 * `serve` with stdout on a FIFO, as `crm-proxy serve | reader` has it. The reader is a shell
 * command on the FIFO: `sleep` never reads (the pipe fills up), `head -c 100` reads a little and
 * exits. Without a reader, stdout is this process's end of a socket pair (Node's `'pipe'` stdio on
 * Linux), as a process manager or journald has it, and this process never reads it.
 */
async function serve(t: { after(fn: () => void): void }, reader?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-stalled-log-'));
  let out: number | 'pipe' = 'pipe';
  if (reader !== undefined) {
    const fifo = join(dir, 'stdout');
    execFileSync('mkfifo', [fifo]);
    const readerProcess = spawn('sh', ['-c', `${reader} < "$0" > /dev/null`, fifo], { stdio: 'ignore' });
    t.after(() => readerProcess.kill('SIGKILL'));
    out = openSync(fifo, 'w');
  }
  const port = await freePort();
  const metricsPort = await freePort();
  const child = spawn(process.execPath, ['bin/crm-proxy.mjs', 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      CRM_PROXY_DATA_DIR: dir,
      CRM_PROXY_SANDBOX: 'false',
      CRM_PROXY_METRICS_PORT: String(metricsPort),
      CRM_PROXY_RATE_LIMIT_PER_SECOND: '100000',
      CRM_PROXY_RATE_LIMIT_BURST: '100000',
      LOG_LEVEL: 'info',
      CRM_PROXY_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 3).toString('base64')}`,
    },
    stdio: ['ignore', out, 'pipe'],
  });
  if (out !== 'pipe') closeSync(out);
  // The socket case: the parent's end is never read, so the socket fills up like the FIFO.
  child.stdout?.pause();
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    'the service to answer',
    async () => {
      if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}`);
      return (await fetch(`${base}/healthz`).catch(() => undefined))?.status === 200;
    },
    { timeoutMs: 60_000 },
  );
  return { child, base, metrics: `http://127.0.0.1:${metricsPort}/metrics` };
}

/** Enough requests that their log lines overflow the pipe and the service's bounded queue. */
async function traffic(base: string, n: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < n) {
        next++;
        const r = await fetch(`${base}/healthz?padding=${'x'.repeat(200)}`);
        assert.equal(r.status, 200);
        await r.arrayBuffer();
      }
    }),
  );
}

async function droppedLines(metrics: string): Promise<number> {
  const text = await (await fetch(metrics)).text();
  const line = text.split('\n').find((l) => l.startsWith('crm_proxy_log_lines_dropped_total '));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

async function exitsCleanly(
  t: { diagnostic(msg: string): void },
  child: ChildProcess,
): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const start = performance.now();
  child.kill('SIGTERM');
  const deadline = new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 60_000).unref());
  const outcome = await Promise.race([exited, deadline]);
  assert.notEqual(outcome, 'stuck', 'serve ignored SIGTERM');
  t.diagnostic(`SIGTERM to exit: ${Math.round(performance.now() - start)} ms`);
  return outcome as number | null;
}

/** /healthz asked every 50 ms while `during` runs (the stall): the slowest answer, all answered 200. */
async function healthzDuring<T>(t: { diagnostic(msg: string): void }, base: string, during: Promise<T>) {
  let done = false;
  const slowest = (async () => {
    let max = 0;
    let n = 0;
    while (!done) {
      const start = performance.now();
      const r = await fetch(`${base}/healthz`);
      assert.equal(r.status, 200);
      await r.arrayBuffer();
      max = Math.max(max, performance.now() - start);
      n++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { max, n };
  })();
  const result = await during.finally(() => {
    done = true;
  });
  const { max, n } = await slowest;
  t.diagnostic(`/healthz during the stall: ${n} answered, slowest ${Math.round(max)} ms`);
  return result;
}

test('a stdout reader that stops reading costs log lines, never requests, /healthz or a clean exit', async (t) => {
  const { child, base, metrics } = await serve(t, 'sleep 3600');
  await healthzDuring(t, base, traffic(base, 8000));
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
  const dropped = await droppedLines(metrics);
  assert.ok(dropped > 0, `dropped lines counted: ${dropped}`);
  t.diagnostic(`dropped lines counted: ${dropped}`);
  assert.equal(await exitsCleanly(t, child), 0);
});

test('a stdout reader that is gone costs log lines, never requests or a clean exit', async (t) => {
  const { child, base, metrics } = await serve(t, 'head -c 100');
  await healthzDuring(t, base, traffic(base, 200));
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
  await waitFor('dropped lines counted', async () => (await droppedLines(metrics)) > 0, {
    timeoutMs: 30_000,
  });
  assert.equal(await exitsCleanly(t, child), 0);
});

test('a socket stdout whose reader stops reading costs log lines, never requests, /healthz or a clean exit', async (t) => {
  const { child, base, metrics } = await serve(t);
  assert.notEqual(child.stdout, null, 'stdout is the socket pair');
  await healthzDuring(t, base, traffic(base, 8000));
  await waitFor('/healthz to answer', async () => (await fetch(`${base}/healthz`)).status === 200, {
    timeoutMs: 30_000,
  });
  const dropped = await droppedLines(metrics);
  assert.ok(dropped > 0, `dropped lines counted: ${dropped}`);
  t.diagnostic(`dropped lines counted: ${dropped}`);
  assert.equal(await exitsCleanly(t, child), 0);
});
