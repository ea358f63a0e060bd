// `npm run bench -- sandbox-stall`: how long `/healthz` of the default `crm-proxy serve` (the
// in-process sandboxes, state kept in the data directory) waits while the sandboxes take writes,
// once they have grown. Grows the Salesforce sandbox to SF_RECORDS Accounts (one Bulk 2.0 upload
// straight to the sandbox) and the HubSpot sandbox to HS_RECORDS contacts (batches of 100), then,
// with `/healthz` polled every 10 ms, writes through the service: 1 Account, 1 contact, and an
// async insert of 10 000 contacts. Reports the worst `/healthz` wait during each write and the
// save that follows it (the write's span plus 1.5 s).
//
// ROOT=<checkout> runs another checkout's `serve` (the same measurement of an older version).
// Defaults: SF_RECORDS=200000 HS_RECORDS=50000.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = process.env['ROOT'] ?? fileURLToPath(new URL('..', import.meta.url));
const SF_RECORDS = Number(process.env['SF_RECORDS'] ?? 200_000);
const HS_RECORDS = Number(process.env['HS_RECORDS'] ?? 50_000);
const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-sandbox-stall-'));

interface SandboxFile {
  base_url: string;
  tokens: { salesforce: string; hubspot: string };
  sandboxes: Record<'salesforce' | 'hubspot', { url: string; access_token: string }>;
}

async function start(): Promise<{ child: ChildProcess; file: SandboxFile }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/crm-proxy.mjs'), 'serve'], {
    cwd: ROOT,
    env: { ...process.env, CRM_PROXY_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'warn', NODE_ENV: 'development' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += String(d)));
  child.stderr?.on('data', (d) => (output += String(d)));
  for (let i = 0; !/\(also in /.test(output); i++) {
    if (child.exitCode !== null || i > 3000) throw new Error(`serve did not start:\n${output}`);
    await sleep(100);
  }
  return { child, file: JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8')) as SandboxFile };
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${res.url}: ${text.slice(0, 300)}`);
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

async function growSalesforce(file: SandboxFile): Promise<void> {
  const { url, access_token } = file.sandboxes.salesforce;
  const base = `${url}/services/data/v62.0/jobs/ingest`;
  const auth = { authorization: `Bearer ${access_token}` };
  const job = await json(
    await fetch(base, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ object: 'Account', operation: 'insert', contentType: 'CSV', lineEnding: 'LF' }),
    }),
  );
  const rows = Array.from({ length: SF_RECORDS }, (_, i) => `Grown account ${i},Grown ${i % 97}`);
  await json(
    await fetch(`${base}/${job['id']}/batches`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'text/csv' },
      body: `Name,Description\n${rows.join('\n')}\n`,
    }),
  );
  await json(
    await fetch(`${base}/${job['id']}`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'UploadComplete' }),
    }),
  );
  for (;;) {
    const state = (await json(await fetch(`${base}/${job['id']}`, { headers: auth })))['state'];
    if (state === 'JobComplete') return;
    if (state === 'Failed' || state === 'Aborted') throw new Error(`bulk job ${String(state)}`);
    await sleep(500);
  }
}

/** Turns the HubSpot sandbox's rate limits off or on (its control API). */
async function hubspotLimits(url: string, enabled: boolean): Promise<void> {
  await json(
    await fetch(`${url}/__sandbox/rate-limits`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled }),
    }),
  );
}

async function growHubSpot(file: SandboxFile): Promise<void> {
  const { url, access_token } = file.sandboxes.hubspot;
  // Growing takes 500 batch calls: HubSpot's 10-second window is off meanwhile, on again for the writes measured.
  await hubspotLimits(url, false);
  for (let done = 0; done < HS_RECORDS; done += 100) {
    const inputs = Array.from({ length: Math.min(100, HS_RECORDS - done) }, (_, i) => ({
      properties: { email: `grown-${done + i}@example.com`, firstname: 'Grown' },
    }));
    await json(
      await fetch(`${url}/crm/v3/objects/contacts/batch/create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ inputs }),
      }),
    );
  }
  await hubspotLimits(url, true);
}

/** Polls `/healthz` every 10 ms until `stop`; the longest wait seen. */
function pollHealth(base: string): { stop(): Promise<number> } {
  let running = true;
  let worst = 0;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await (await fetch(`${base}/healthz`)).arrayBuffer();
      worst = Math.max(worst, performance.now() - t0);
      await sleep(10);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return worst;
    },
  };
}

async function during(base: string, write: () => Promise<void>): Promise<number> {
  await sleep(1500); // earlier saves done
  const poll = pollHealth(base);
  await sleep(200);
  await write();
  await sleep(1500); // the save that follows the write
  return poll.stop();
}

const { child, file } = await start();
try {
  const t0 = performance.now();
  await growSalesforce(file);
  await growHubSpot(file);
  console.log(
    `grown: ${SF_RECORDS} Accounts, ${HS_RECORDS} contacts in ${((performance.now() - t0) / 1000).toFixed(0)} s (${ROOT})`,
  );
  const api = (token: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${file.base_url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }).then(json);
  const results: Array<[string, number]> = [];
  for (let round = 0; round < 3; round++) {
    results.push([
      '1-record Salesforce insert',
      await during(file.base_url, async () => {
        await api(file.tokens.salesforce, '/v1/object/insert/Account', { data: [{ Name: `One ${round}` }] });
      }),
    ]);
    results.push([
      '1-record HubSpot insert',
      await during(file.base_url, async () => {
        await api(file.tokens.hubspot, '/v1/object/insert/contacts', {
          data: [{ email: `one-${round}@example.com` }],
        });
      }),
    ]);
  }
  results.push([
    '10 000-contact HubSpot insert',
    await during(file.base_url, async () => {
      const data = Array.from({ length: 10_000 }, (_, i) => ({ email: `ten-${i}@example.com` }));
      const job = await api(
        file.tokens.hubspot,
        '/v1/object/insert/contacts',
        { data },
        { prefer: 'respond-async' },
      );
      for (;;) {
        const got = await json(
          await fetch(`${file.base_url}/v1/jobs/${String(job['id'])}`, {
            headers: { authorization: `Bearer ${file.tokens.hubspot}` },
          }),
        );
        if (!['queued', 'running'].includes(String(got['state']))) break;
        await sleep(100);
      }
    }),
  ]);
  for (const [what, worst] of results)
    console.log(`${what.padEnd(32)} /healthz worst ${worst.toFixed(0)} ms`);
} finally {
  child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
