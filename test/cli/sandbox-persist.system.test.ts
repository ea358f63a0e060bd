import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { waitFor } from '../helpers/wait.ts';
import { BIN, cleanEnv } from './run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-sf-persist-'));
const running = new Set<ChildProcess>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs the CLI with `args` until its output matches `ready` (or it exits); `stop` ends it with
 * SIGTERM and expects a clean exit.
 */
async function launch(args: string[], env: Record<string, string>, ready: RegExp, what: string) {
  const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), stdio: 'pipe' });
  running.add(child);
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  child.stderr.on('data', (d) => (output += String(d)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  // A generous deadline: three tsx starts on a busy machine; it guards a hang, it measures nothing.
  await waitFor(what, () => ready.test(output) || child.exitCode !== null, { timeoutMs: 180_000 });
  const stop = async () => {
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output);
    running.delete(child);
  };
  return { output: () => output, stop };
}

/** `crm-proxy serve` with the in-process sandboxes, as `npm start` runs it; resolves once sandbox.json is written. */
async function serve(extra: Record<string, string>) {
  const { output, stop } = await launch(
    ['serve'],
    { CRM_PROXY_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'warn', ...extra },
    /\(also in /,
    'the service to start its sandboxes',
  );
  assert.match(output(), /\(also in /, output());
  const file = JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8')) as {
    base_url: string;
    tokens: { salesforce: string };
  };
  const call = async (path: string, data: unknown) => {
    const res = await fetch(`${file.base_url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${file.tokens.salesforce}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { call, stop };
}

const getAccount = async (call: Awaited<ReturnType<typeof serve>>['call'], id: string) =>
  call('/v1/object/get/Account', { ids: [id], fields: ['Name', 'Tier__c'] });

test('serve keeps the in-process Salesforce org across restarts by default; CRM_PROXY_SANDBOX_PERSIST=false starts fresh', async () => {
  const first = await serve({});
  const field = await first.call('/v1/object/add_custom_field/Account', {
    name: 'Tier',
    label: 'Tier',
    type: 'Text',
    length: 20,
  });
  assert.equal(field.status, 200, JSON.stringify(field.body));
  const inserted = await first.call('/v1/object/insert/Account', [{ Name: 'Kept Co', Tier__c: 'Gold' }]);
  assert.equal(inserted.status, 200, JSON.stringify(inserted.body));
  const id = (inserted.body.data as { id: string; success: boolean }[])[0]?.id ?? '';
  assert.match(id, /^001/);
  await first.stop();
  assert.ok(existsSync(join(dir, 'salesforce-sandbox.state')), 'the org is written to the data directory');

  const second = await serve({});
  const again = await getAccount(second.call, id);
  assert.equal(again.status, 200, JSON.stringify(again.body));
  const rec = (again.body.data as Record<string, unknown>[])[0];
  assert.equal(rec?.Name, 'Kept Co');
  assert.equal(rec?.Tier__c, 'Gold', 'the custom field (schema) came back too');
  await second.stop();

  // Turned off, the sandbox starts from its seed, even with the file present.
  const fresh = await serve({ CRM_PROXY_SANDBOX_PERSIST: 'false' });
  const gone = await fresh.call('/v1/object/get/Account', { ids: [id], fields: ['Name'] });
  assert.equal(gone.status, 200, JSON.stringify(gone.body));
  assert.deepEqual(gone.body.data, [null]);
  await fresh.stop();
});

test('crm-proxy sandbox salesforce honours CRM_PROXY_SANDBOX_PERSIST as --persist', async () => {
  const own = mkdtempSync(join(tmpdir(), 'crm-proxy-sf-persist-alone-'));
  try {
    const start = async () => {
      const { output: text, stop } = await launch(
        ['sandbox', 'salesforce', '--port', '0'],
        { CRM_PROXY_DATA_DIR: own, CRM_PROXY_SANDBOX_PERSIST: 'true' },
        /access token: \S+/,
        'the sandbox to start',
      );
      const output = text();
      const url = /sandbox on (http:\/\/\S+)/.exec(output)?.[1] ?? '';
      const token = /access token: (\S+)/.exec(output)?.[1] ?? '';
      assert.ok(url !== '' && token !== '', output);
      const rest = (path: string, init: RequestInit = {}) =>
        fetch(`${url}/services/data/v62.0${path}`, {
          ...init,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        });
      return { rest, stop };
    };
    const first = await start();
    const created = await first.rest('/sobjects/Account', {
      method: 'POST',
      body: JSON.stringify({ Name: 'Alone Co' }),
    });
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: string };
    await first.stop();
    const second = await start();
    const again = await second.rest(`/sobjects/Account/${id}`);
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as { Name: string }).Name, 'Alone Co');
    await second.stop();
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
});
