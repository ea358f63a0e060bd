// `crm-proxy serve` (what `npm start` runs) with its in-process sandboxes: they run on a thread of
// their own, so a sandbox that holds its thread does not hold up the service's answers; and each
// saves what a write changed, one record at a time, not its whole state.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { waitFor } from '../helpers/wait.ts';
import { BIN, cleanEnv } from './run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-sandbox-thread-'));
let child: ChildProcess | undefined;
let output = '';
let file: {
  base_url: string;
  tokens: { salesforce: string };
  sandboxes: { salesforce: { url: string } };
};

before(async () => {
  child = spawn(process.execPath, [BIN, 'serve'], {
    env: cleanEnv({ CRM_PROXY_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'warn' }),
    stdio: 'pipe',
  });
  child.stdout?.on('data', (d) => (output += String(d)));
  child.stderr?.on('data', (d) => (output += String(d)));
  // The deadline guards a hang on a busy machine; it measures nothing.
  await waitFor(
    'the service to start its sandboxes',
    () => /\(also in /.test(output) || child?.exitCode !== null,
    {
      timeoutMs: 180_000,
    },
  );
  assert.match(output, /\(also in /, output);
  file = JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8')) as typeof file;
});

after(() => {
  child?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const insertAccounts = async (names: string[]): Promise<string[]> => {
  const res = await fetch(`${file.base_url}/v1/object/insert/Account`, {
    method: 'POST',
    headers: { authorization: `Bearer ${file.tokens.salesforce}`, 'content-type': 'application/json' },
    body: JSON.stringify({ data: names.map((Name) => ({ Name })) }),
  });
  const body = (await res.json()) as { data: Array<{ id: string; success: boolean }> };
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.ok(body.data.every((r) => r.success));
  return body.data.map((r) => r.id);
};

/** Every record row of the Salesforce sandbox's saved state, by id. */
const savedRecords = (): Map<string, string> => {
  const db = new Database(join(dir, 'salesforce-sandbox.state'), { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare<[], { key: string; value: Buffer }>("SELECT key, value FROM entry WHERE part = 'org'")
      .all();
    return new Map(rows.map((r) => [r.key, r.value.toString('base64')]));
  } finally {
    db.close();
  }
};

test('a sandbox holding its thread does not hold up the service', async () => {
  const order: string[] = [];
  const busy = fetch(`${file.sandboxes.salesforce.url}/__sandbox/busy`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ms: 4_000 }),
  }).then(async (res) => {
    assert.equal(res.status, 200, await res.text());
    order.push('sandbox');
  });
  // Lets the busy call reach the sandbox first (an ordering aid; nothing is timed).
  await sleep(300);
  const health = await fetch(`${file.base_url}/healthz`);
  assert.equal(health.status, 200);
  order.push('service');
  await busy;
  assert.deepEqual(order, ['service', 'sandbox'], 'the service answered while the sandbox was busy');
});

test('a write saves the records it changed, not the whole org', async () => {
  const grown = await insertAccounts(Array.from({ length: 200 }, (_, i) => `Grown ${i}`));
  await waitFor('the grown org to be saved', () => {
    const saved = savedRecords();
    return grown.every((id) => saved.has(id));
  });
  const before = savedRecords();
  const [one] = await insertAccounts(['One more']);
  assert.ok(one);
  await waitFor('the new record to be saved', () => savedRecords().has(one));
  const after = savedRecords();
  const changed = [...after].filter(([id, value]) => before.get(id) !== value).map(([id]) => id);
  const gone = [...before.keys()].filter((id) => !after.has(id));
  assert.deepEqual(changed, [one], 'only the written record was saved again');
  assert.deepEqual(gone, []);
});
