import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadOrCreateBootstrapCredentials, startSandboxes } from '../../src/cli/sandbox-bootstrap.ts';
import { cleanEnv, runCli } from './run-cli.ts';

interface Finding {
  check: string;
  level: 'ok' | 'warn' | 'fail';
  detail: string;
  fix?: string;
}

test('doctor checks configuration, store, key, OAuth apps and each connection against the sandboxes, and says what to fix', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-doctor-'));
  const credentials = loadOrCreateBootstrapCredentials(dir);
  const sandboxes = await startSandboxes({ ports: { salesforce: 0, hubspot: 0 }, credentials });
  t.after(async () => {
    await sandboxes.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const env = cleanEnv({
    CRM_PROXY_DATA_DIR: dir,
    CRM_PROXY_SANDBOX: 'true',
    CRM_PROXY_SANDBOX_SF_PORT: new URL(sandboxes.salesforce.url).port,
    CRM_PROXY_SANDBOX_HS_PORT: new URL(sandboxes.hubspot.url).port,
  });

  // A bad value: every problem named, with where to correct it, and nothing else checked.
  const badConfig = await runCli(['doctor', '--json'], { ...env, CRM_PROXY_REGION: 'mars', PORT: 'x' });
  assert.equal(badConfig.code, 1, badConfig.stderr);
  const [configFinding, ...rest] = (JSON.parse(badConfig.stdout) as { findings: Finding[] }).findings;
  assert.equal(configFinding?.check, 'configuration');
  assert.equal(configFinding?.level, 'fail');
  assert.match(configFinding?.detail ?? '', /CRM_PROXY_REGION[\s\S]*PORT|PORT[\s\S]*CRM_PROXY_REGION/);
  assert.deepEqual(rest, []);

  // Before there is a store: one failure naming where it looked, nothing created.
  const empty = await runCli(['doctor', '--json'], env);
  assert.equal(empty.code, 1, empty.stderr);
  const before = JSON.parse(empty.stdout) as { ok: boolean; findings: Finding[] };
  assert.equal(before.ok, false);
  assert.deepEqual(
    before.findings.map((f) => [f.check, f.level]),
    [
      ['configuration', 'ok'],
      ['store', 'fail'],
    ],
  );
  assert.match(before.findings[1]?.fix ?? '', /\.\/bin\/crm-proxy\.mjs init/);

  // Two sandbox connections, checked when added; a third whose refresh token the sandbox refuses.
  const sf = await runCli(
    [
      'connections',
      'add',
      '--provider',
      'salesforce',
      '--sandbox',
      '--instance-url',
      sandboxes.salesforce.url,
      '--api-base-url',
      sandboxes.salesforce.url,
      '--refresh-token',
      '-',
      '--label',
      'sf ok',
    ],
    env,
    `${credentials.salesforce.refreshToken}\n`,
  );
  assert.equal(sf.code, 0, sf.stderr);
  const hs = await runCli(
    [
      'connections',
      'add',
      '--provider',
      'hubspot',
      '--sandbox',
      '--api-base-url',
      sandboxes.hubspot.url,
      '--refresh-token',
      '-',
      '--label',
      'hs ok',
    ],
    env,
    `${credentials.hubspot.refreshToken}\n`,
  );
  assert.equal(hs.code, 0, hs.stderr);
  const bad = await runCli(
    [
      'connections',
      'add',
      '--provider',
      'salesforce',
      '--sandbox',
      '--instance-url',
      sandboxes.salesforce.url,
      '--api-base-url',
      sandboxes.salesforce.url,
      '--refresh-token',
      '-',
      '--label',
      'sf revoked',
      '--skip-check',
    ],
    env,
    'not-a-refresh-token\n',
  );
  assert.equal(bad.code, 0, bad.stderr);
  const [sfId, hsId, badId] = [sf.stdout.trim(), hs.stdout.trim(), bad.stdout.trim()];

  const callsBefore = sandboxes.salesforce.accounting.snapshot().total;
  const report = await runCli(['doctor', '--json'], env);
  assert.equal(report.code, 1, report.stderr);
  const { ok, findings } = JSON.parse(report.stdout) as { ok: boolean; findings: Finding[] };
  assert.equal(ok, false);
  const by = new Map(findings.map((f) => [f.check, f]));
  assert.equal(by.get('configuration')?.level, 'ok');
  assert.equal(by.get('store')?.level, 'ok');
  assert.match(by.get('store')?.detail ?? '', /3 connection\(s\)/);
  assert.equal(by.get('encryption key')?.level, 'ok');
  assert.match(by.get('encryption key')?.detail ?? '', /encryption-key opens the credentials of all 3/);
  for (const app of ['Salesforce OAuth app', 'HubSpot OAuth app']) {
    assert.equal(by.get(app)?.level, 'warn');
    assert.match(
      by.get(app)?.fix ?? '',
      /_CLIENT_ID and .*_CLIENT_SECRET .*redirect URL http:\/\/127\.0\.0\.1:\d+\/oauth\/callback/,
    );
  }
  assert.equal(by.get(`connection ${sfId} (sf ok)`)?.level, 'ok');
  assert.match(
    by.get(`connection ${sfId} (sf ok)`)?.detail ?? '',
    /Salesforce at http:\/\/127\.0\.0\.1:\d+ answered for/,
  );
  assert.equal(by.get(`connection ${hsId} (hs ok)`)?.level, 'ok');
  const failing = by.get(`connection ${badId} (sf revoked)`);
  assert.equal(failing?.level, 'fail');
  assert.match(failing?.fix ?? '', new RegExp(`connections reauth ${badId}`));
  // One cheap call (plus at most a token refresh) per Salesforce connection, nothing else.
  assert.ok(sandboxes.salesforce.accounting.snapshot().total - callsBefore <= 4);

  // The readable form prints the same, with the fixes.
  const text = await runCli(['doctor'], env);
  assert.equal(text.code, 1);
  assert.match(text.stderr, new RegExp(`FAIL  connection ${badId}[^\\n]*\\n\\s+fix: `));
  assert.match(text.stderr, /1 problem\(s\) to fix\./);

  // A missing generated key is named before anything is opened.
  rmSync(join(dir, 'encryption-key'));
  const noKey = await runCli(['doctor', '--json'], env);
  const keyFinding = (JSON.parse(noKey.stdout) as { findings: Finding[] }).findings.find(
    (f) => f.check === 'encryption key',
  );
  assert.equal(keyFinding?.level, 'fail');
  assert.match(keyFinding?.fix ?? '', /CRM_PROXY_ENCRYPTION_KEYS/);
});
