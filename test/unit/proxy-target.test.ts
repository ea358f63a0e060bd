import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/errors/index.ts';
import type { CrmAdapter } from '../../src/providers/adapter.ts';
import { type ProxyTargets, proxyTargets, resolveTarget } from '../../src/proxy/target.ts';
import type { Connection } from '../../src/store/types.ts';

function connection(overrides: Partial<Connection>): Connection {
  return {
    id: 'conn_1',
    provider: 'salesforce',
    region: 'eu',
    label: null,
    instanceUrl: 'https://acme.my.salesforce.com',
    apiBaseUrl: null,
    sandbox: false,
    status: 'active',
    statusReason: null,
    credentialsVersion: 1,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    accountId: null,
    loginUrl: null,
    ...overrides,
  };
}

// The two facts proxyTargets reads of an adapter: its API base URL and the public origins it adds.
const salesforce = {
  defaultApiBaseUrl: (c: Connection) => c.apiBaseUrl ?? c.instanceUrl ?? 'https://login.salesforce.com',
  handlers: {
    passthrough: { publicOrigins: (c: Connection) => (c.instanceUrl === null ? [] : [c.instanceUrl]) },
  },
} as unknown as CrmAdapter;
const hubspot = {
  defaultApiBaseUrl: (c: Connection) => c.apiBaseUrl ?? 'https://api.hubapi.com',
  handlers: {
    passthrough: { publicOrigins: (c: Connection) => (c.sandbox ? ['https://api.hubapi.com'] : []) },
  },
} as unknown as CrmAdapter;

const sf = proxyTargets(salesforce, connection({}));
const hs = proxyTargets(hubspot, connection({ provider: 'hubspot', instanceUrl: null }));
const hsSandbox = proxyTargets(
  hubspot,
  connection({ provider: 'hubspot', instanceUrl: null, apiBaseUrl: 'http://127.0.0.1:4010', sandbox: true }),
);

function refused(targets: ProxyTargets, target: string): void {
  assert.throws(
    () => resolveTarget(targets, target, ''),
    (error: unknown) => error instanceof ApiError && error.code === 'target_not_allowed',
    target,
  );
}

test('full URLs and paths on the own host resolve, query strings kept', () => {
  assert.equal(
    resolveTarget(sf, '/services/data/v62.0/query', '?q=SELECT+Id+FROM+Account').url,
    'https://acme.my.salesforce.com/services/data/v62.0/query?q=SELECT+Id+FROM+Account',
  );
  assert.equal(
    resolveTarget(sf, 'https://ACME.my.salesforce.com:443/services/data/v62.0/sobjects/Account/001', '').url,
    'https://acme.my.salesforce.com/services/data/v62.0/sobjects/Account/001',
  );
  // A proxy in front may collapse `//` in a path; a fully percent-encoded target is decoded once.
  assert.equal(
    resolveTarget(hs, 'https:/api.hubapi.com/crm/v3/properties/contacts', '').url,
    'https://api.hubapi.com/crm/v3/properties/contacts',
  );
  assert.equal(
    resolveTarget(hs, 'https%3A%2F%2Fapi.hubapi.com%2Fcrm%2Fv3%2Fschemas%3Farchived%3Dfalse', '?limit=5').url,
    'https://api.hubapi.com/crm/v3/schemas?archived=false&limit=5',
  );
  // An encoded @ in a path (an email as id) is data, not user-info.
  assert.equal(
    resolveTarget(hs, 'https://api.hubapi.com/crm/v3/objects/contacts/a%40b.com', '?idProperty=email').url,
    'https://api.hubapi.com/crm/v3/objects/contacts/a%40b.com?idProperty=email',
  );
});

test('sandbox connections map the real host, and their own http URL, to the sandbox', () => {
  assert.equal(
    resolveTarget(hsSandbox, 'https://api.hubapi.com/crm/v3/objects/contacts', '?limit=1').url,
    'http://127.0.0.1:4010/crm/v3/objects/contacts?limit=1',
  );
  assert.equal(
    resolveTarget(hsSandbox, 'http://127.0.0.1:4010/crm/v3/schemas', '').url,
    'http://127.0.0.1:4010/crm/v3/schemas',
  );
  const sfSandbox = proxyTargets(
    salesforce,
    connection({ apiBaseUrl: 'http://127.0.0.1:4020', sandbox: true }),
  );
  assert.equal(
    resolveTarget(sfSandbox, 'https://acme.my.salesforce.com/services/data', '').url,
    'http://127.0.0.1:4020/services/data',
  );
  // Plain http to the real hosts stays refused, sandbox or not.
  refused(hsSandbox, 'http://api.hubapi.com/crm/v3/objects/contacts');
  refused(sfSandbox, 'http://acme.my.salesforce.com/services/data');
});

test('a real connection refuses anything but its own https origin', () => {
  for (const target of [
    'http://acme.my.salesforce.com/services/data',
    'https://acme.my.salesforce.com:8443/services/data',
    'https://acme.my.salesforce.com./services/data',
    'https://acme.my.salesforce.com.evil.com/services/data',
    'https://other.my.salesforce.com/services/data',
    'https://evil.com@acme.my.salesforce.com/services/data',
    'https://acme.my.salesforce.com@evil.com/services/data',
    'https://acme.my.salesforce.com%2f@evil.com/',
    'https://api.hubapi.com/crm/v3/objects/contacts',
    'https://127.0.0.1/services/data',
    'https://[::1]/services/data',
    'https://0x7f000001/x',
    'https://acme.my.salesforce.com/services/../../x',
    'https://acme.my.salesforce.com/services/%2e%2e/x',
    'https://acme.my.salesforce.com/a\\b',
    'https://acme.my.salesforce.com/a#frag',
    'https://acme.my.salesforce.com/a b',
    'https://acmé.my.salesforce.com/x',
    'https:acme.my.salesforce.com/x',
    'javascript:alert(1)',
    'data:text/plain,hi',
    '//evil.com/x',
    'evil.com/x',
  ]) {
    refused(sf, target);
  }
  refused(hs, 'https://api.hubapi.com%252fevil.com/');
  refused(hs, 'https%3A%2F%2Fapi.hubapi.com%2F..%2Fx');
  refused(hs, 'https%3A%2F%2Fapi.hubapi.com%252F..%252Fx');
});

test('the refusal names the allowed origins', () => {
  try {
    resolveTarget(hs, 'https://evil.com/x', '');
    assert.fail('not refused');
  } catch (error) {
    assert.ok(error instanceof ApiError);
    assert.match(error.message, /https:\/\/api\.hubapi\.com/);
    assert.equal(error.status, 400);
  }
});
