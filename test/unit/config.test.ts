import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import type { TObject } from 'typebox';
import { launcherSettings } from '../../src/cli/sandbox-bootstrap.ts';
import { type Config, ConfigError, loadConfig } from '../../src/config/index.ts';
import { parseEncryptionKeys, SERVICE_SETTINGS } from '../../src/config/service.ts';
import { hubspotProvider } from '../../src/providers/hubspot/index.ts';
import { BUILT_IN_PROVIDERS } from '../../src/providers/index.ts';
import { settingsOf } from '../../src/providers/registry.ts';
import { salesforceProvider } from '../../src/providers/salesforce/index.ts';

// Each CRM's settings, as its own declaration read them.
const sf = (c: Config) => settingsOf(c.providers, salesforceProvider);
const hs = (c: Config) => settingsOf(c.providers, hubspotProvider);

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
  assert.equal(sf(c).loginUrl, 'https://login.salesforce.com');
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
    HUBSPOT_SCOPES: 'oauth, crm.objects.contacts.read',
    HUBSPOT_OPTIONAL_SCOPES: 'tickets',
    CRM_PROXY_CONNECT_LINK_TTL_HOURS: '2.5',
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
  assert.equal(sf(c).clientId, 'sf-id');
  assert.equal(sf(c).clientSecret, 'sf-secret');
  assert.equal(sf(c).loginUrl, 'https://test.salesforce.com');
  assert.deepEqual(hs(c), {
    clientId: 'hs-id',
    clientSecret: 'hs-secret',
    scopes: ['oauth', 'crm.objects.contacts.read'],
    optionalScopes: ['tickets'],
  });
  assert.equal(c.connect.linkTtlMs, 2.5 * 3_600_000);
  assert.ok(hs(loadConfig({})).scopes.includes('crm.objects.contacts.write'));
  assert.equal(loadConfig({}).connect.linkTtlMs, 24 * 3_600_000);
  assert.throws(() => loadConfig({ HUBSPOT_SCOPES: 'oauth "x"' }), /HUBSPOT_SCOPES must be scope names/);
  assert.throws(
    () => loadConfig({ CRM_PROXY_CONNECT_LINK_TTL_HOURS: '0' }),
    /CRM_PROXY_CONNECT_LINK_TTL_HOURS/,
  );
  assert.equal(c.logLevel, 'debug');
});

test('Salesforce API version and sandbox ports', () => {
  const c = loadConfig({});
  assert.equal(sf(c).apiVersion, '62.0');
  assert.deepEqual(launcherSettings({}, c.port).ports, { salesforce: 8081, hubspot: 8082 });
  assert.deepEqual(launcherSettings({}, 0).ports, { salesforce: 0, hubspot: 0 });
  assert.deepEqual(launcherSettings({ CRM_PROXY_SANDBOX_HS_PORT: '9100' }, 9000).ports, {
    salesforce: 9001,
    hubspot: 9100,
  });
  assert.equal(sf(loadConfig({ SALESFORCE_API_VERSION: '61.0' })).apiVersion, '61.0');
  assert.throws(() => loadConfig({ SALESFORCE_API_VERSION: 'v61' }), /^ConfigError: SALESFORCE_API_VERSION/);
});

test('CRM_PROXY_SANDBOX_PERSIST: on by default, off with false, a bad value names the variable', () => {
  const persist = (env: Record<string, string>) => launcherSettings(env, 8080).persist;
  assert.equal(persist({}), true);
  assert.equal(persist({ CRM_PROXY_SANDBOX_PERSIST: 'false' }), false);
  assert.equal(persist({ CRM_PROXY_SANDBOX_PERSIST: 'true' }), true);
  assert.equal(persist({ CRM_PROXY_SANDBOX_PERSIST: '0' }), false);
  assert.throws(
    () => persist({ CRM_PROXY_SANDBOX_PERSIST: 'sometimes' }),
    /CRM_PROXY_SANDBOX_PERSIST must be true or false/,
  );
});

test('NODE_ENV=production turns the sandbox off, and refuses to start when it is forced on', () => {
  assert.equal(loadConfig({ NODE_ENV: 'production' }).sandbox, false);
  assert.equal(loadConfig({ NODE_ENV: 'production' }).production, true);
  assert.equal(loadConfig({ NODE_ENV: 'production', CRM_PROXY_SANDBOX: '0' }).sandbox, false);
  for (const value of ['1', 'true', 'on']) {
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production', CRM_PROXY_SANDBOX: value }),
      (e: unknown) =>
        e instanceof ConfigError &&
        /^CRM_PROXY_SANDBOX cannot be on when NODE_ENV=production/.test(e.message) &&
        /__sandbox/.test(e.message),
    );
  }
  assert.equal(loadConfig({ CRM_PROXY_SANDBOX: '1' }).sandbox, true);
});

test('production refuses a plain-http public URL on a public host unless TLS is terminated in front', () => {
  const prod = { NODE_ENV: 'production' };
  assert.throws(
    () => loadConfig({ ...prod, CRM_PROXY_PUBLIC_URL_US: 'http://us.crm-proxy.example.com' }),
    (e: unknown) =>
      e instanceof ConfigError &&
      /^CRM_PROXY_PUBLIC_URL_US is a plain http:\/\/ URL/.test(e.message) &&
      /CRM_PROXY_BEHIND_TLS=true/.test(e.message) &&
      !e.message.includes('example.com'),
  );
  assert.throws(
    () => loadConfig({ ...prod, CRM_PROXY_PUBLIC_URL_EU: 'http://10.0.0.5:8080' }),
    /_EU is a plain/,
  );
  const behind = loadConfig({
    ...prod,
    CRM_PROXY_PUBLIC_URL_EU: 'http://eu.crm-proxy.example.com',
    CRM_PROXY_BEHIND_TLS: 'true',
  });
  assert.equal(behind.behindTls, true);
  assert.equal(behind.publicUrls.eu, 'http://eu.crm-proxy.example.com');
  for (const local of ['http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080']) {
    assert.equal(loadConfig({ ...prod, CRM_PROXY_PUBLIC_URL_EU: local }).publicUrls.eu, local);
  }
  assert.equal(
    loadConfig({ ...prod, CRM_PROXY_PUBLIC_URL_EU: 'https://eu.crm-proxy.example.com' }).behindTls,
    false,
  );
  // Outside production a plain-http URL is fine (development behind nothing).
  assert.equal(
    loadConfig({ CRM_PROXY_PUBLIC_URL_EU: 'http://eu.crm-proxy.example.com' }).publicUrls.eu,
    'http://eu.crm-proxy.example.com',
  );
  assert.throws(() => loadConfig({ CRM_PROXY_BEHIND_TLS: 'perhaps' }), /^ConfigError: CRM_PROXY_BEHIND_TLS/);
});

test('server timeouts and connection caps: defaults, overrides, and bad values named', () => {
  assert.deepEqual(loadConfig({}).limits, {
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 300_000,
    bodyIdleTimeoutMs: 30_000,
    keepAliveTimeoutMs: 65_000,
    maxConnections: 4096,
    maxConnectionsPerClient: 256,
    connectionCapExempt: { loopback: true, addresses: [] },
  });
  const c = loadConfig({
    CRM_PROXY_HEADERS_TIMEOUT_MS: '2000',
    CRM_PROXY_REQUEST_TIMEOUT_MS: '60000',
    CRM_PROXY_BODY_IDLE_TIMEOUT_MS: '5000',
    CRM_PROXY_KEEP_ALIVE_TIMEOUT_MS: '75000',
    CRM_PROXY_MAX_CONNECTIONS: '1000',
    CRM_PROXY_MAX_CONNECTIONS_PER_CLIENT: '0',
    CRM_PROXY_CONNECTION_CAP_EXEMPT: '10.0.0.7, loopback ,::FFFF:10.0.0.8',
  });
  assert.deepEqual(c.limits, {
    headersTimeoutMs: 2000,
    requestTimeoutMs: 60_000,
    bodyIdleTimeoutMs: 5000,
    keepAliveTimeoutMs: 75_000,
    maxConnections: 1000,
    maxConnectionsPerClient: 0,
    connectionCapExempt: { loopback: true, addresses: ['10.0.0.7', '::ffff:10.0.0.8'] },
  });
  assert.deepEqual(loadConfig({ CRM_PROXY_CONNECTION_CAP_EXEMPT: 'none' }).limits.connectionCapExempt, {
    loopback: false,
    addresses: [],
  });
  const cases: [Record<string, string>, RegExp][] = [
    [
      { CRM_PROXY_HEADERS_TIMEOUT_MS: '0' },
      /^CRM_PROXY_HEADERS_TIMEOUT_MS must be a whole number of milliseconds/,
    ],
    [{ CRM_PROXY_REQUEST_TIMEOUT_MS: '5s' }, /^CRM_PROXY_REQUEST_TIMEOUT_MS must be/],
    [{ CRM_PROXY_BODY_IDLE_TIMEOUT_MS: '-1' }, /^CRM_PROXY_BODY_IDLE_TIMEOUT_MS must be/],
    [{ CRM_PROXY_KEEP_ALIVE_TIMEOUT_MS: '1.5' }, /^CRM_PROXY_KEEP_ALIVE_TIMEOUT_MS must be/],
    [{ CRM_PROXY_MAX_CONNECTIONS: '0' }, /^CRM_PROXY_MAX_CONNECTIONS must be a whole number of connections/],
    [{ CRM_PROXY_MAX_CONNECTIONS_PER_CLIENT: 'many' }, /^CRM_PROXY_MAX_CONNECTIONS_PER_CLIENT must be/],
    [{ CRM_PROXY_CONNECTION_CAP_EXEMPT: 'proxy.internal' }, /^CRM_PROXY_CONNECTION_CAP_EXEMPT must be/],
    [
      { CRM_PROXY_HEADERS_TIMEOUT_MS: '20000', CRM_PROXY_REQUEST_TIMEOUT_MS: '10000' },
      /^CRM_PROXY_HEADERS_TIMEOUT_MS must not be larger than CRM_PROXY_REQUEST_TIMEOUT_MS/,
    ],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && message.test(e.message),
    );
  }
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
  const keys = (raw: string) => loadConfig({ CRM_PROXY_ENCRYPTION_KEYS: raw }).encryption.keys;
  assert.throws(() => keys(`a:${short}`), check);
  assert.throws(() => keys(a), /<key id>:<base64 key>/);
  assert.throws(() => keys(`a:${a},a:${b}`), /appears twice/);
  assert.throws(() => keys('a:not base64!!'), /32 bytes/);
  // Every bad entry is named, each once, and the good ones are kept.
  const problems: string[] = [];
  assert.deepEqual(
    parseEncryptionKeys(`a:${a},b,c:${short},a:${b}`, problems).map((k) => k.id),
    ['a'],
  );
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.deepEqual(
    keys(` a:${a} , `).map((k) => k.id),
    ['a'],
  );
});

/** The variables a declaration reads, groups included. */
function variablesOf(declaration: TObject): string[] {
  return Object.values(declaration.properties).flatMap((p) =>
    'env' in p ? [String(p['env'])] : variablesOf(p as TObject),
  );
}

test('every variable the service or a built-in CRM declares is documented in docs/configuration.md', () => {
  const doc = readFileSync(resolve(import.meta.dirname, '../../docs/configuration.md'), 'utf8');
  const variables = [SERVICE_SETTINGS, ...BUILT_IN_PROVIDERS.map((module) => module.settings)].flatMap((d) =>
    variablesOf(d),
  );
  assert.ok(variables.includes('SALESFORCE_API_VERSION') && variables.includes('HUBSPOT_SCOPES'));
  assert.ok(variables.includes('CRM_PROXY_JOB_SWEEP_MS') && variables.includes('OTEL_SERVICE_NAME'));
  // Pairs are documented as `SALESFORCE_CLIENT_ID` / `_SECRET`: the suffix counts as the variable.
  const suffixes = (name: string) => [1, 2].map((n) => name.split('_').slice(-n).join('_'));
  const missing = variables.filter(
    (name) => !doc.includes(name) && !suffixes(name).some((end) => doc.includes(`/ \`_${end}\``)),
  );
  assert.deepEqual(missing, []);
});
