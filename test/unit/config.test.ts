import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig, parseEncryptionKeys } from '../../src/config/index.ts';

test('defaults', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.dataDir, resolve('./data'));
  assert.equal(c.region, 'eu');
  assert.deepEqual(c.publicUrls, {});
  assert.equal(c.sandbox, true);
  assert.equal(c.production, false);
  assert.equal(c.databaseUrl, undefined);
  assert.deepEqual(c.encryption, { keys: [], activeKeyId: undefined });
  assert.equal(c.salesforce.loginUrl, 'https://login.salesforce.com');
  assert.equal(c.logLevel, 'info');
});

test('reads every variable', () => {
  const key = randomBytes(32);
  const c = loadConfig({
    PORT: '0',
    HOST: '0.0.0.0',
    CRM_PROXY_DATA_DIR: '/var/lib/crm-proxy',
    CRM_PROXY_REGION: 'US',
    CRM_PROXY_PUBLIC_URL_EU: 'https://eu.crm-proxy.example.com/',
    CRM_PROXY_PUBLIC_URL_US: 'https://us.crm-proxy.example.com',
    CRM_PROXY_SANDBOX: 'false',
    DATABASE_URL: 'postgres://u@db/crm',
    CRM_PROXY_ENCRYPTION_KEYS: `main:${key.toString('base64')}`,
    SALESFORCE_CLIENT_ID: 'sf-id',
    SALESFORCE_CLIENT_SECRET: 'sf-secret',
    SALESFORCE_LOGIN_URL: 'https://test.salesforce.com',
    HUBSPOT_CLIENT_ID: 'hs-id',
    HUBSPOT_CLIENT_SECRET: 'hs-secret',
    LOG_LEVEL: 'debug',
  });
  assert.equal(c.port, 0);
  assert.equal(c.host, '0.0.0.0');
  assert.equal(c.dataDir, '/var/lib/crm-proxy');
  assert.equal(c.region, 'us');
  assert.deepEqual(c.publicUrls, {
    eu: 'https://eu.crm-proxy.example.com',
    us: 'https://us.crm-proxy.example.com',
  });
  assert.equal(c.sandbox, false);
  assert.equal(c.databaseUrl, 'postgres://u@db/crm');
  assert.equal(c.encryption.activeKeyId, 'main');
  assert.ok(c.encryption.keys[0]?.key.equals(key));
  assert.equal(c.salesforce.clientId, 'sf-id');
  assert.equal(c.salesforce.clientSecret, 'sf-secret');
  assert.equal(c.salesforce.loginUrl, 'https://test.salesforce.com');
  assert.deepEqual(c.hubspot, { clientId: 'hs-id', clientSecret: 'hs-secret' });
  assert.equal(c.logLevel, 'debug');
});

test('Salesforce API version and sandbox ports', () => {
  const c = loadConfig({});
  assert.equal(c.salesforce.apiVersion, '62.0');
  assert.deepEqual(c.sandboxPorts, { salesforce: 8081, hubspot: 8082 });
  assert.deepEqual(loadConfig({ PORT: '0' }).sandboxPorts, { salesforce: 0, hubspot: 0 });
  assert.deepEqual(loadConfig({ PORT: '9000', CRM_PROXY_SANDBOX_HS_PORT: '9100' }).sandboxPorts, {
    salesforce: 9001,
    hubspot: 9100,
  });
  assert.equal(loadConfig({ SALESFORCE_API_VERSION: '61.0' }).salesforce.apiVersion, '61.0');
  assert.throws(() => loadConfig({ SALESFORCE_API_VERSION: 'v61' }), /^ConfigError: SALESFORCE_API_VERSION/);
});

test('NODE_ENV=production turns the sandbox off by default, but it can be forced on', () => {
  assert.equal(loadConfig({ NODE_ENV: 'production' }).sandbox, false);
  assert.equal(loadConfig({ NODE_ENV: 'production' }).production, true);
  assert.equal(loadConfig({ NODE_ENV: 'production', CRM_PROXY_SANDBOX: '1' }).sandbox, true);
});

test('invalid values name the variable', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: 'eighty' }, /^PORT must be a port number/],
    [{ PORT: '70000' }, /^PORT/],
    [{ CRM_PROXY_REGION: 'ap' }, /^CRM_PROXY_REGION must be one of eu, us/],
    [{ CRM_PROXY_SANDBOX: 'maybe' }, /^CRM_PROXY_SANDBOX must be true or false/],
    [{ CRM_PROXY_PUBLIC_URL_US: 'us.example.com' }, /^CRM_PROXY_PUBLIC_URL_US must be an absolute/],
    [{ SALESFORCE_LOGIN_URL: 'ftp://x' }, /^SALESFORCE_LOGIN_URL must be an http/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL/],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && message.test(e.message),
    );
  }
});

test('encryption keys: several need an active id, which must exist; bad keys are refused without echoing them', () => {
  const a = randomBytes(32).toString('base64');
  const b = randomBytes(32).toString('base64');
  assert.throws(() => loadConfig({ CRM_PROXY_ENCRYPTION_KEYS: `a:${a},b:${b}` }), /KEY_ID is required/);
  assert.equal(
    loadConfig({ CRM_PROXY_ENCRYPTION_KEYS: `a:${a},b:${b}`, CRM_PROXY_ENCRYPTION_KEY_ID: 'b' }).encryption
      .activeKeyId,
    'b',
  );
  assert.throws(
    () => loadConfig({ CRM_PROXY_ENCRYPTION_KEYS: `a:${a}`, CRM_PROXY_ENCRYPTION_KEY_ID: 'z' }),
    /names a key/,
  );
  const short = randomBytes(16).toString('base64');
  const check = (e: unknown) =>
    e instanceof ConfigError && !e.message.includes(short) && /32 bytes/.test(e.message);
  assert.throws(() => parseEncryptionKeys(`a:${short}`), check);
  assert.throws(() => parseEncryptionKeys(a), /<key id>:<base64 key>/);
  assert.throws(() => parseEncryptionKeys(`a:${a},a:${b}`), /appears twice/);
  assert.throws(() => parseEncryptionKeys('a:not base64!!'), /32 bytes/);
  assert.deepEqual(
    parseEncryptionKeys(` a:${a} , `).map((k) => k.id),
    ['a'],
  );
});
