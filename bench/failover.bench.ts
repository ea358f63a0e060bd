// `npm run bench -- failover`: how long after a `kill -9` of the instance running a job another
// instance resumes it. Two service processes (test/helpers/service-process.ts) on one store, the
// default job lease (CRM_PROXY_JOB_LEASE_MS=30000) unless set; a Salesforce sandbox in this process
// that takes 20 ms per record, so a 2 000-record async insert (Collections, 200 a call) runs long.
// Once instance A has made two calls, A is killed; the resume is the first call to the sandbox
// after the kill (only B is left to make it; calls A sent before it died are let in first). KILLS=3 rounds, each on a fresh store.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startSalesforceSandbox } from '../sandbox/salesforce/index.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const KILLS = Number(process.env['KILLS'] ?? 3);
const LEASE_MS = process.env['CRM_PROXY_JOB_LEASE_MS'] ?? '30000';

async function instance(arg: unknown): Promise<{ child: ChildProcess; baseUrl: string; token: string }> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'test/helpers/service-process.ts'), JSON.stringify(arg)],
    {
      cwd: ROOT,
      env: { ...process.env, CRM_PROXY_JOB_LEASE_MS: LEASE_MS },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
  return { child, ...(JSON.parse(first) as { baseUrl: string; token: string }) };
}

const sandbox = await startSalesforceSandbox({ port: 0, realism: { perRecordMs: 20 } });
const times: number[] = [];
try {
  for (let round = 1; round <= KILLS; round++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'crm-proxy-failover-'));
    const arg = { dataDir, sandbox: { url: sandbox.url, credentials: sandbox.credentials } };
    const a = await instance(arg);
    const b = await instance(arg);
    try {
      const calls = sandbox.accounting.count('collections.create');
      const records = Array.from({ length: 2000 }, (_, i) => ({ Name: `Failover ${round}-${i}` }));
      const res = await fetch(`${a.baseUrl}/v1/object/insert/Account`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${a.token}`,
          'content-type': 'application/json',
          prefer: 'respond-async',
          'x-crm-proxy-interface': 'collections',
        },
        body: JSON.stringify({ data: records }),
      });
      if (res.status !== 202) throw new Error(`${res.status}: ${await res.text()}`);
      while (sandbox.accounting.count('collections.create') < calls + 2) await sleep(20);
      a.child.kill('SIGKILL');
      const killedAt = performance.now();
      // Calls A sent before it died may still be arriving: a second passes before the count is taken
      // (the resume comes far later than that: the lease runs out first).
      await sleep(1000);
      const seen = sandbox.accounting.snapshot().total;
      while (sandbox.accounting.snapshot().total === seen) await sleep(20);
      const resumed = (performance.now() - killedAt) / 1000;
      times.push(resumed);
      console.log(`kill ${round}: resumed by the other instance ${resumed.toFixed(1)} s after the kill`);
    } finally {
      a.child.kill('SIGKILL');
      b.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  console.log(
    `job lease ${LEASE_MS} ms: resumed ${Math.min(...times).toFixed(1)}–${Math.max(...times).toFixed(1)} s after the kill over ${times.length} kills`,
  );
} finally {
  await sandbox.close();
}
