import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { waitFor } from '../helpers/wait.ts';
import { BIN, cleanEnv, runCli } from './run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-sf-picklists-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('crm-proxy sandbox --address-picklists takes on or off, nothing else', async () => {
  const run = await runCli(['sandbox', 'salesforce', '--address-picklists', 'maybe'], cleanEnv({}));
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--address-picklists takes on or off/);
});

test('crm-proxy sandbox salesforce --address-picklists off: Account without the code picklists', async () => {
  const child = spawn(
    process.execPath,
    [BIN, 'sandbox', 'salesforce', '--port', '0', '--address-picklists', 'off'],
    { env: cleanEnv({ CRM_PROXY_DATA_DIR: dir }), stdio: 'pipe' },
  );
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  child.stderr.on('data', (d) => (output += String(d)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    // A generous deadline: a tsx start on a busy machine; it guards a hang, it measures nothing.
    await waitFor('the sandbox to start', () => /access token: \S+/.test(output) || child.exitCode !== null, {
      timeoutMs: 180_000,
    });
    const url = /sandbox on (http:\/\/\S+)/.exec(output)?.[1] ?? '';
    const token = /access token: (\S+)/.exec(output)?.[1] ?? '';
    assert.ok(url !== '' && token !== '', output);
    const answer = await fetch(`${url}/services/data/v62.0/sobjects/Account/describe`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const names = ((await answer.json()) as { fields: Array<{ name: string }> }).fields.map((f) => f.name);
    assert.ok(names.includes('BillingCountry'));
    assert.deepEqual(
      names.filter((n) => /(Country|State)Code$/.test(n)),
      [],
    );
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output);
});
