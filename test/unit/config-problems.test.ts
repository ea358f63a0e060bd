import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { decoded, readSettings } from '../../src/config/settings.ts';

function problemsOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err;
  }
  assert.fail('loadConfig accepted a bad configuration');
}

test('every bad value is reported at once, each naming its variable and never the value', () => {
  const error = problemsOf({
    PORT: 'eighty',
    CRM_PROXY_REGION: 'mars',
    LOG_LEVEL: 'loud',
    CRM_PROXY_RATE_LIMIT_PER_SECOND: '-5',
    CRM_PROXY_RATE_LIMIT_BURST: 'lots',
    CRM_PROXY_CONNECTION_CONCURRENCY: '0',
    CRM_PROXY_BODY_LIMIT_BYTES: '12.5',
    CRM_PROXY_CRM_TIMEOUT_MS: 'soon',
    CRM_PROXY_CRM_CONNECT_TIMEOUT_MS: '99999999',
    CRM_PROXY_REQUEST_TIMEOUT_MS: '1',
    CRM_PROXY_MAX_CONNECTIONS: '0',
    CRM_PROXY_SF_BULK_THRESHOLD: '0',
    CRM_PROXY_PUBLIC_URL_EU: 'not a url',
    CRM_PROXY_ENCRYPTION_KEYS: 'k1:c2VjcmV0LXZhbHVlLXRoYXQtaXMtdG9vLXNob3J0',
  });
  const named = [
    'PORT',
    'CRM_PROXY_REGION',
    'LOG_LEVEL',
    'CRM_PROXY_RATE_LIMIT_PER_SECOND',
    'CRM_PROXY_RATE_LIMIT_BURST',
    'CRM_PROXY_CONNECTION_CONCURRENCY',
    'CRM_PROXY_BODY_LIMIT_BYTES',
    'CRM_PROXY_CRM_TIMEOUT_MS',
    'CRM_PROXY_CRM_CONNECT_TIMEOUT_MS',
    'CRM_PROXY_REQUEST_TIMEOUT_MS',
    'CRM_PROXY_MAX_CONNECTIONS',
    'CRM_PROXY_SF_BULK_THRESHOLD',
    'CRM_PROXY_PUBLIC_URL_EU',
    'CRM_PROXY_ENCRYPTION_KEYS',
  ];
  assert.equal(error.problems.length, named.length, error.message);
  for (const [i, name] of named.entries()) {
    assert.ok(
      error.problems.some((p) => p.startsWith(name)),
      `problem ${i} names ${name}:\n${error.message}`,
    );
  }
  assert.match(error.message, new RegExp(`^${named.length} configuration problems:\\n  - `));
  for (const secret of ['eighty', 'mars', 'loud', 'lots', 'soon', 'c2VjcmV0', 'not a url']) {
    assert.ok(!error.message.includes(secret), `the message repeats the value "${secret}"`);
  }
});

test('one bad value keeps the single-line message', () => {
  const error = problemsOf({ CRM_PROXY_BODY_LIMIT_BYTES: '10' });
  assert.deepEqual(error.problems, [
    'CRM_PROXY_BODY_LIMIT_BYTES must be a whole number of bytes from 1024 to 268435456',
  ]);
  assert.equal(error.message, error.problems[0]);
});

test('capacity limits: defaults, every variable, 0 turns the rate limit off', () => {
  assert.deepEqual(loadConfig({}).capacity, {
    rateLimit: { perSecond: 200, burst: 2000 },
    connectionConcurrency: 16,
    bodyLimitBytes: 8 * 1024 * 1024,
    crmTimeoutMs: 60_000,
    crmConnectTimeoutMs: 10_000,
    crmMaxAttempts: 3,
    replaySkipWindowMs: 60_000,
    replayBudgetBytes: 64 * 1024 * 1024,
    placeLeaseMs: 10_000,
  });
  assert.deepEqual(
    loadConfig({
      CRM_PROXY_RATE_LIMIT_PER_SECOND: '50',
      CRM_PROXY_RATE_LIMIT_BURST: '75',
      CRM_PROXY_CONNECTION_CONCURRENCY: '4',
      CRM_PROXY_BODY_LIMIT_BYTES: '1048576',
      CRM_PROXY_CRM_TIMEOUT_MS: '30000',
      CRM_PROXY_CRM_CONNECT_TIMEOUT_MS: '2000',
      CRM_PROXY_CRM_MAX_ATTEMPTS: '1',
      CRM_PROXY_REPLAY_SKIP_WINDOW_MS: '0',
      CRM_PROXY_REPLAY_BUDGET_BYTES: '2097152',
      CRM_PROXY_PLACE_LEASE_MS: '2000',
    }).capacity,
    {
      rateLimit: { perSecond: 50, burst: 75 },
      connectionConcurrency: 4,
      bodyLimitBytes: 1_048_576,
      crmTimeoutMs: 30_000,
      crmConnectTimeoutMs: 2000,
      crmMaxAttempts: 1,
      replaySkipWindowMs: 0,
      replayBudgetBytes: 2 * 1024 * 1024,
      placeLeaseMs: 2000,
    },
  );
  assert.deepEqual(problemsOf({ CRM_PROXY_REPLAY_SKIP_WINDOW_MS: '-5' }).problems, [
    'CRM_PROXY_REPLAY_SKIP_WINDOW_MS must be a whole number of milliseconds from 0 to 3600000',
  ]);
  assert.equal(loadConfig({ CRM_PROXY_RATE_LIMIT_PER_SECOND: '0' }).capacity.rateLimit, null);
  // A rate above the default burst raises the burst with it unless the burst is set.
  assert.deepEqual(loadConfig({ CRM_PROXY_RATE_LIMIT_PER_SECOND: '5000' }).capacity.rateLimit, {
    perSecond: 5000,
    burst: 5000,
  });
  assert.deepEqual(
    problemsOf({ CRM_PROXY_RATE_LIMIT_PER_SECOND: '100', CRM_PROXY_RATE_LIMIT_BURST: '10' }).problems,
    ['CRM_PROXY_RATE_LIMIT_BURST must be at least CRM_PROXY_RATE_LIMIT_PER_SECOND'],
  );
});

test('metrics off loopback need a token, and the deploy/env.example placeholder is no token', () => {
  const open = problemsOf({ CRM_PROXY_METRICS_PORT: '9464', CRM_PROXY_METRICS_HOST: '0.0.0.0' });
  assert.match(
    open.message,
    /CRM_PROXY_METRICS_TOKEN is required when CRM_PROXY_METRICS_HOST is not a loopback/,
  );
  const placeholder = problemsOf({
    CRM_PROXY_METRICS_PORT: '9464',
    CRM_PROXY_METRICS_TOKEN: 'REPLACE_WITH_32_HEX',
  });
  assert.match(placeholder.message, /CRM_PROXY_METRICS_TOKEN is still the placeholder/);
  for (const host of ['127.0.0.1', '::1', 'localhost']) {
    assert.equal(
      loadConfig({ CRM_PROXY_METRICS_PORT: '9464', CRM_PROXY_METRICS_HOST: host }).metrics.host,
      host,
    );
  }
  const guarded = loadConfig({
    CRM_PROXY_METRICS_PORT: '9464',
    CRM_PROXY_METRICS_HOST: '0.0.0.0',
    CRM_PROXY_METRICS_TOKEN: '0123456789abcdef0123456789abcdef',
  });
  assert.equal(guarded.metrics.host, '0.0.0.0');
});

test('a provider declaration: each variable checked on its own, an unset required one named, defaults decoded', () => {
  const declaration = Type.Object({
    token: Type.String({ env: 'X_TOKEN', problem: 'must be 8 letters', pattern: '^[a-z]{8}$' }),
    limit: Type.Optional(Type.Integer({ env: 'X_LIMIT', problem: 'must be 1 to 9', minimum: 1, maximum: 9 })),
    scopes: decoded(
      Type.String({
        env: 'X_SCOPES',
        problem: 'must be scope names',
        default: 'a b,c',
        pattern: '^[a-z ,]*$',
      }),
      (v: string) => v.split(/[ ,]+/),
    ),
  });
  const problems: string[] = [];
  assert.deepEqual(readSettings(declaration, { X_TOKEN: 'abcdefgh' }, problems), {
    token: 'abcdefgh',
    scopes: ['a', 'b', 'c'],
  });
  assert.deepEqual(problems, []);
  readSettings(declaration, { X_LIMIT: '12', X_SCOPES: 'a "b"' }, problems);
  assert.deepEqual(problems, [
    'X_TOKEN is not set; it must be 8 letters',
    'X_LIMIT must be 1 to 9',
    'X_SCOPES must be scope names',
  ]);
  assert.throws(
    () => readSettings(Type.Object({ bare: Type.String() }), {}, problems),
    /must name its variable/,
  );
});

test('production: every unsafe setting is reported at once, the plain-http public URL among them', () => {
  const error = problemsOf({
    NODE_ENV: 'production',
    CRM_PROXY_SANDBOX: 'true',
    SALESFORCE_LOGIN_URL: 'http://login.example.com',
    CRM_PROXY_PUBLIC_URL_EU: 'http://crm.example.com',
    CRM_PROXY_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  });
  assert.match(error.message, /CRM_PROXY_SANDBOX cannot be on/);
  assert.match(error.message, /SALESFORCE_LOGIN_URL is a plain http/);
  assert.match(error.message, /CRM_PROXY_PUBLIC_URL_EU is a plain http/);
});
