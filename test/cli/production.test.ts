// NODE_ENV=production at start-up: no sandbox CRMs, no generated key, no plain-http public URL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { startService } from '../../src/main.ts';
import { cleanEnv, runCli } from './run-cli.ts';

const key = randomBytes(32).toString('base64');

describe('production start-up', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'crm-proxy-prod-'));
    env = cleanEnv({ NODE_ENV: 'production', CRM_PROXY_DATA_DIR: dir, PORT: '0' });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('serve refuses a forced sandbox, before starting anything or generating a key', async () => {
    const run = await runCli(['serve'], { ...env, CRM_PROXY_SANDBOX: '1' });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /CRM_PROXY_SANDBOX cannot be on when NODE_ENV=production/);
    assert.doesNotMatch(run.stdout, /listening|sandbox on/i);
    assert.deepEqual(readdirSync(dir), []);
  });

  test('sandbox command refuses to run in production', async () => {
    const run = await runCli(['sandbox', 'both'], env);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /sandbox CRMs do not run when NODE_ENV=production/);
    assert.deepEqual(readdirSync(dir), []);
  });

  test('serve refuses a plain-http public URL unless TLS is terminated in front', async () => {
    const run = await runCli(['serve'], {
      ...env,
      CRM_PROXY_ENCRYPTION_KEYS: `k1:${key}`,
      CRM_PROXY_PUBLIC_URL_EU: 'http://eu.crm-proxy.example.com',
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /CRM_PROXY_PUBLIC_URL_EU is a plain http:\/\/ URL.*CRM_PROXY_BEHIND_TLS=true/);
    assert.doesNotMatch(run.stdout, /listening/);
  });

  test('startService runs without sandboxes behind declared TLS, and refuses sandbox clients', async () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      PORT: '0',
      CRM_PROXY_DATA_DIR: dir,
      CRM_PROXY_ENCRYPTION_KEYS: `k1:${key}`,
      CRM_PROXY_PUBLIC_URL_EU: 'http://eu.crm-proxy.example.com',
      CRM_PROXY_BEHIND_TLS: 'true',
      LOG_LEVEL: 'silent',
    });
    assert.equal(config.sandbox, false);
    await assert.rejects(
      startService({ ...config, sandbox: true }),
      (e: unknown) => e instanceof ConfigError && /CRM_PROXY_SANDBOX cannot be on/.test(e.message),
    );
    await assert.rejects(
      startService(config, {
        sandboxes: { salesforce: { clientId: 'sandbox', clientSecret: 'sandbox-secret' } },
      }),
      ConfigError,
    );
    const service = await startService(config);
    try {
      const health = await fetch(`${service.baseUrl}/healthz`);
      assert.equal(health.status, 200);
      assert.equal(existsSync(join(dir, 'encryption-key')), false);
      assert.equal(existsSync(join(dir, 'sandbox.json')), false);
    } finally {
      await service.close();
    }
  });
});
