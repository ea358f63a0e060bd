// Where `crm-proxy serve` writes what: the start-up summary is plain text and never on the log's
// stream. Piped (a container, a log collector), stdout carries JSON lines only and the summary goes
// to stderr; in a terminal the summary is all the terminal shows, and the log goes to a file.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort } from '../../scripts/local-cluster.ts';
import { waitFor } from '../helpers/wait.ts';
import { BIN, cleanEnv } from './run-cli.ts';

function serveEnv(dir: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv({
    PORT: String(port),
    HOST: '127.0.0.1',
    CRM_PROXY_DATA_DIR: dir,
    CRM_PROXY_SANDBOX: 'false',
    LOG_LEVEL: 'info',
    CRM_PROXY_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 3).toString('base64')}`,
    ...extra,
  });
}

/** Starts `child`, waits until it answers, makes one logged request, and stops it. */
async function exercise(
  t: { after(fn: () => void): void },
  child: ChildProcess,
  port: number,
): Promise<void> {
  t.after(() => child.kill('SIGKILL'));
  const base = `http://127.0.0.1:${port}`;
  await waitFor('the service to answer', async () => {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}`);
    return (await fetch(`${base}/healthz`).catch(() => undefined))?.status === 200;
  });
  const denied = await fetch(`${base}/v1/proxy/services/data`);
  assert.equal(denied.status, 401);
  await denied.arrayBuffer();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { msg?: string; res?: { statusCode?: number } });

test('piped: stdout is JSON lines only, the start-up summary is on stderr', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-serve-output-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], { env: serveEnv(dir, port), stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += String(d)));
  child.stderr?.on('data', (d) => (stderr += String(d)));
  await exercise(t, child, port);
  assert.match(stderr, /crm-proxy listening on http:\/\/127\.0\.0\.1/);
  assert.match(stderr, /Console: http:\/\/127\.0\.0\.1:\d+\/console/);
  assert.doesNotMatch(stderr, /^\{"level"/m, 'no JSON line in the summary');
  const lines = jsonLines(stdout);
  assert.ok(
    lines.some((l) => l.res?.statusCode === 401),
    `the refused request is in the log: ${stdout.slice(0, 500)}`,
  );
  assert.doesNotMatch(stdout, /listening on|Console:/, 'no summary line in the log');
});

test('in a terminal: the terminal shows the summary, the log goes to <data dir>/crm-proxy.log', {
  skip: existsSync('/usr/bin/script') ? false : 'needs script(1) for a terminal',
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-serve-output-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  // script(1) gives the service a pseudo-terminal as stdout, as a shell would.
  const child = spawn('script', ['-qfec', `exec "${process.execPath}" "${BIN}" serve`, '/dev/null'], {
    env: serveEnv(dir, port),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let terminal = '';
  child.stdout?.on('data', (d) => (terminal += String(d)));
  await exercise(t, child, port);
  const logFile = join(dir, 'crm-proxy.log');
  assert.match(terminal, /crm-proxy listening on/);
  assert.ok(terminal.includes(`Log (JSON lines): ${logFile}`), terminal);
  assert.doesNotMatch(terminal, /\{"level"/, 'no JSON line on the terminal');
  const lines = jsonLines(readFileSync(logFile, 'utf8'));
  assert.ok(
    lines.some((l) => l.res?.statusCode === 401),
    'the refused request is in the log file',
  );
});
