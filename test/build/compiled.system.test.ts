// The compiled build: `scripts/build.mjs` (what `npm run build` runs) emits JavaScript that plain
// `node` runs with no TypeScript loader, sandboxes and their seed data included.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cleanEnv } from '../cli/run-cli.ts';
import { waitFor } from '../helpers/wait.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function run(args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: 'pipe' });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

describe('compiled build', () => {
  // Inside the checkout, so the compiled modules find node_modules and package.json ("type": "module").
  const out = join(ROOT, 'dist-test', randomBytes(6).toString('hex'));
  let dataDir: string;
  let child: ChildProcess | undefined;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'crm-proxy-build-'));
    const built = await run(['scripts/build.mjs', relative(ROOT, out)]);
    assert.equal(built.code, 0, built.out);
  });
  after(async () => {
    if (child?.exitCode === null) {
      const exited = new Promise((r) => child?.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(out, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('emits JavaScript only, with the sandboxes and their seed data', () => {
    const emitted = files(out).map((f) => relative(out, f));
    assert.ok(emitted.includes(join('src', 'cli', 'index.js')));
    assert.ok(emitted.includes(join('sandbox', 'hubspot', 'seed', 'data', 'contact-properties.json')));
    assert.ok(emitted.some((f) => f.startsWith(join('sandbox', 'salesforce', 'seed', 'describes'))));
    assert.deepEqual(
      emitted.filter((f) => f.endsWith('.ts')),
      [],
    );
    // Every relative import was rewritten to the emitted .js file.
    const main = readFileSync(join(out, 'src', 'main.js'), 'utf8');
    assert.match(main, /from "\.\/app\.js"/);
    assert.doesNotMatch(main, /\.ts"/);
  });

  test('plain node serves it: /readyz, a describe through a sandbox, and SIGTERM stops it cleanly', async () => {
    const entry = join(out, 'src', 'cli', 'index.js');
    assert.ok(existsSync(entry));
    const proc = spawn(process.execPath, [entry, 'serve'], {
      cwd: ROOT,
      // No --import / --loader: NODE_OPTIONS is cleared so nothing can slip a TypeScript loader in.
      env: cleanEnv({ CRM_PROXY_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', NODE_OPTIONS: '' }),
      stdio: 'pipe',
    });
    child = proc;
    let output = '';
    proc.stdout.on('data', (d) => (output += String(d)));
    proc.stderr.on('data', (d) => (output += String(d)));
    await waitFor('the compiled service to listen', () => /listening on (http:\/\/\S+)/.test(output));
    const baseUrl = /listening on (http:\/\/\S+)/.exec(output)?.[1] ?? '';

    const ready = await fetch(`${baseUrl}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready' });

    // The Salesforce sandbox answers from its compiled seed data (seed/describes/Account.json).
    const sandbox = JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as {
      tokens: Record<string, string>;
    };
    const describe = await fetch(`${baseUrl}/v1/describe/Account`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.tokens['salesforce']}` },
    });
    const body = (await describe.json()) as { data?: { name?: string; fields?: { name: string }[] } };
    assert.equal(describe.status, 200, JSON.stringify(body));
    assert.equal(body.data?.name, 'Account');
    assert.ok(body.data?.fields?.some((f) => f.name === 'Name'));

    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    proc.kill('SIGTERM');
    assert.equal(await exited, 0, output);
  });
});
