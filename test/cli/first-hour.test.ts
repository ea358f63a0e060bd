// What a newcomer meets in the CLI: it finds the running service (public URL, the data directory's
// sandbox.json, PORT) and says which it used; sandbox mode says which option it cannot honour;
// every --help is whole; doctor names the cause when a sandbox connection's tokens are refused.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadOrCreateBootstrapCredentials } from '../../src/cli/sandbox-bootstrap.ts';
import { cleanEnv, runCli } from './run-cli.ts';

function sandboxDir(t: import('node:test').TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-first-hour-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  loadOrCreateBootstrapCredentials(dir);
  return dir;
}

const sandboxJson = (dir: string, base: string, sf: string, hs: string) =>
  writeFileSync(
    join(dir, 'sandbox.json'),
    JSON.stringify({
      base_url: base,
      tokens: { salesforce: 'x', hubspot: 'y' },
      sandboxes: { salesforce: { url: sf, access_token: 'a' }, hubspot: { url: hs, access_token: 'b' } },
    }),
  );

test('connect-link create uses the running service from sandbox.json, else PORT, and says which', async (t) => {
  const dir = sandboxDir(t);
  const env = cleanEnv({ CRM_PROXY_DATA_DIR: dir, CRM_PROXY_SANDBOX: 'true' });
  assert.equal((await runCli(['init'], env)).code, 0);

  const byPort = await runCli(['connect-link', 'create', '--provider', 'hubspot'], { ...env, PORT: '18500' });
  assert.equal(byPort.code, 0, byPort.stderr);
  assert.match(byPort.stdout, /^http:\/\/127\.0\.0\.1:18500\/connect\//);
  assert.match(byPort.stderr, /uses http:\/\/127\.0\.0\.1:18500 \(from PORT\)/);

  sandboxJson(dir, 'http://127.0.0.1:18400', 'http://127.0.0.1:18401', 'http://127.0.0.1:18402');
  const found = await runCli(['connect-link', 'create', '--provider', 'hubspot'], env);
  assert.equal(found.code, 0, found.stderr);
  assert.match(found.stdout, /^http:\/\/127\.0\.0\.1:18400\/connect\//);
  assert.match(found.stderr, /from .*sandbox\.json, written by the service/);

  const published = await runCli(['connect-link', 'create', '--provider', 'hubspot'], {
    ...env,
    CRM_PROXY_PUBLIC_URL_EU: 'https://crm.example.com',
  });
  assert.match(published.stdout, /^https:\/\/crm\.example\.com\/connect\//);
  assert.match(published.stderr, /\(from CRM_PROXY_PUBLIC_URL_EU\)/);

  // A login host asks for a real org, which needs the OAuth app: the error says to leave it out.
  const loginHost = await runCli(
    ['connect-link', 'create', '--provider', 'salesforce', '--login-host', 'test.salesforce.com'],
    env,
  );
  assert.equal(loginHost.code, 1);
  assert.match(loginHost.stderr, /SALESFORCE_CLIENT_ID/);
  assert.match(
    loginHost.stderr,
    /leave out the login host \(--login-host, login_host\) to connect the sandbox/,
  );
});

test('doctor names the cause when a sandbox connection points at a sandbox that is not there', async (t) => {
  const dir = sandboxDir(t);
  const env = cleanEnv({ CRM_PROXY_DATA_DIR: dir, CRM_PROXY_SANDBOX: 'true' });
  assert.equal((await runCli(['init'], env)).code, 0);
  const added = await runCli(
    [
      'connections',
      'add',
      '--provider',
      'hubspot',
      '--sandbox',
      '--api-base-url',
      'http://127.0.0.1:9',
      '--private-app-token',
      'pat-na1-00000000-0000-4000-8000-000000000000',
      '--skip-check',
    ],
    env,
  );
  assert.equal(added.code, 0, added.stderr);
  sandboxJson(dir, 'http://127.0.0.1:18400', 'http://127.0.0.1:18401', 'http://127.0.0.1:18402');
  const doctor = await runCli(['doctor', '--json'], env);
  const findings = (JSON.parse(doctor.stdout) as { findings: Array<{ check: string; detail: string }> })
    .findings;
  const connection = findings.find((f) => f.check.startsWith('connection '));
  assert.match(
    connection?.detail ?? '',
    /points at http:\/\/127\.0\.0\.1:9, but this service's hubspot sandbox listens at http:\/\/127\.0\.0\.1:18402/,
  );
});

test('every --help is whole, and help answers --help', async () => {
  const env = cleanEnv({});
  const commands = ['connections', 'connect-link', 'tokens', 'jobs', 'rotate-key', 'operators', 'requests'];
  for (const command of [...commands, 'init', 'doctor', 'usage']) {
    const own = await runCli([command, '--help'], env);
    assert.equal(own.code, 0, `${command} --help: ${own.stderr}`);
    const viaHelp = await runCli(['help', command], env);
    assert.equal(viaHelp.stdout, own.stdout, `help ${command}`);
    // The description of each command ends a sentence or a parenthesis, never mid-phrase.
    const block = own.stdout.split('\n\n')[0] ?? '';
    assert.doesNotMatch(block, /\b(must be|when|and|or|the|to)\s*$/, `${command} --help stops mid-sentence`);
  }
  const doctor = await runCli(['doctor', '--help'], env);
  assert.match(
    doctor.stdout.replace(/\s+/g, ' '),
    /Exit code 1 when something must be fixed, 0 otherwise \(warnings included\)\./,
  );
  for (const args of [['help', '--help'], ['help', '-h'], ['--help']]) {
    const out = await runCli(args, env);
    assert.equal(out.code, 0, `${args.join(' ')}: ${out.stderr}`);
    assert.match(out.stdout, /^crm-proxy: one bearer token/);
  }
});
