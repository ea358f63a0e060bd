import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CredentialsStore, TokenManager } from '../../src/connections/token-manager.ts';
import type { ConnectionWithCredentials, Credentials } from '../../src/connections/types.ts';
import { ApiError } from '../../src/errors/index.ts';
import type { CrmAdapter, RefreshOutcome } from '../../src/providers/adapter.ts';
import type { Connection, LocksRepository } from '../../src/store/types.ts';

const connection: Connection = {
  id: 'conn_test',
  provider: 'salesforce',
  region: 'eu',
  label: null,
  instanceUrl: 'https://example.my.salesforce.com',
  apiBaseUrl: null,
  sandbox: false,
  status: 'active',
  statusReason: null,
  credentialsVersion: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  accountId: null,
  loginUrl: null,
};

/** One shared "database" row, as two instances sharing a store would see it. */
class FakeStore implements CredentialsStore {
  credentials: Credentials;
  version = 1;
  status: Connection['status'] = 'active';
  writes: Credentials[] = [];
  constructor(credentials: Credentials) {
    this.credentials = credentials;
  }
  async get(): Promise<ConnectionWithCredentials> {
    return {
      connection: { ...connection, status: this.status, credentialsVersion: this.version },
      credentials: structuredClone(this.credentials),
      version: this.version,
    };
  }
  async compareAndSetCredentials(_id: string, expected: number, credentials: Credentials) {
    if (expected !== this.version) return false;
    this.credentials = structuredClone(credentials);
    this.version += 1;
    this.writes.push(credentials);
    return true;
  }
  async markNeedsReauth() {
    this.status = 'needs_reauth';
    return true;
  }
}

/** A store lock: one holder at a time, across every TokenManager sharing it. */
function fakeLocks(): LocksRepository {
  let chain: Promise<unknown> = Promise.resolve();
  return {
    withLock<T>(_key: string, _ttl: number, fn: () => Promise<T>): Promise<T> {
      const run = chain.then(fn, fn);
      chain = run.catch(() => undefined);
      return run;
    },
  };
}

function fakeAdapter(outcomes: () => RefreshOutcome, calls: string[]): Pick<CrmAdapter, 'auth'> {
  return {
    auth: {
      async refresh(_app, refreshToken) {
        calls.push(refreshToken);
        await new Promise((r) => setTimeout(r, 5));
        return outcomes();
      },
      isExpiredToken: () => false,
    },
  };
}

function manager(
  store: FakeStore,
  locks: LocksRepository,
  adapter: Pick<CrmAdapter, 'auth'>,
  now = () => Date.parse('2026-01-01T00:00:00Z'),
) {
  return new TokenManager({
    connections: store,
    locks,
    adapterFor: () => adapter,
    oauthAppFor: () => ({ clientId: 'id', clientSecret: 'secret', tokenUrl: 'https://example/token' }),
    clock: { now },
  });
}

test('concurrent 401s on one token collapse into one refresh', async () => {
  const store = new FakeStore({ kind: 'oauth', refreshToken: 'r1', accessToken: 'a1' });
  const calls: string[] = [];
  let n = 0;
  const tm = manager(
    store,
    fakeLocks(),
    fakeAdapter(() => ({ ok: true, grant: { accessToken: `a${++n + 1}` } }), calls),
  );
  assert.equal(await tm.accessToken(connection), 'a1');
  const tokens = await Promise.all(
    Array.from({ length: 200 }, () => tm.refreshAfterRejected(connection, 'a1')),
  );
  assert.equal(calls.length, 1);
  assert.ok(tokens.every((t) => t === 'a2'));
  // A late caller that still holds the old token gets the new one without another refresh.
  assert.equal(await tm.refreshAfterRejected(connection, 'a1'), 'a2');
  assert.equal(calls.length, 1);
  assert.deepEqual(store.credentials, { kind: 'oauth', refreshToken: 'r1', accessToken: 'a2' });
});

test('two instances sharing a store refresh once: the second re-reads under the lock', async () => {
  const store = new FakeStore({ kind: 'oauth', refreshToken: 'r1', accessToken: 'a1' });
  const locks = fakeLocks();
  const calls: string[] = [];
  const adapter = fakeAdapter(() => ({ ok: true, grant: { accessToken: 'a2' } }), calls);
  const one = manager(store, locks, adapter);
  const two = manager(store, locks, adapter);
  const [x, y] = await Promise.all([
    one.refreshAfterRejected(connection, 'a1'),
    two.refreshAfterRejected(connection, 'a1'),
  ]);
  assert.deepEqual([x, y], ['a2', 'a2']);
  assert.equal(calls.length, 1);
});

test('a rotated refresh token is stored before the new access token is used, and the old one is not reused', async () => {
  const store = new FakeStore({ kind: 'oauth', refreshToken: 'r1', accessToken: 'a1' });
  const calls: string[] = [];
  let n = 1;
  const tm = manager(
    store,
    fakeLocks(),
    fakeAdapter(() => {
      n += 1;
      return { ok: true, grant: { accessToken: `a${n}`, refreshToken: `r${n}` } };
    }, calls),
  );
  assert.equal(await tm.refreshAfterRejected(connection, 'a1'), 'a2');
  assert.equal(store.writes.length, 1);
  assert.deepEqual(store.credentials, { kind: 'oauth', refreshToken: 'r2', accessToken: 'a2' });
  assert.equal(await tm.refreshAfterRejected(connection, 'a2'), 'a3');
  assert.deepEqual(calls, ['r1', 'r2']);
});

test('a compare-and-set conflict is re-read and the newest grant still lands', async () => {
  const store = new FakeStore({ kind: 'oauth', refreshToken: 'r1', accessToken: 'a1' });
  const calls: string[] = [];
  const tm = manager(
    store,
    fakeLocks(),
    fakeAdapter(() => {
      store.version += 1; // someone else wrote meanwhile
      return { ok: true, grant: { accessToken: 'a2', refreshToken: 'r2' } };
    }, calls),
  );
  assert.equal(await tm.refreshAfterRejected(connection, 'a1'), 'a2');
  assert.equal(store.credentials.kind === 'oauth' && store.credentials.refreshToken, 'r2');
});

test('invalid_grant marks the connection needs_reauth and answers 503', async () => {
  const store = new FakeStore({ kind: 'oauth', refreshToken: 'dead', accessToken: 'a1' });
  const tm = manager(
    store,
    fakeLocks(),
    fakeAdapter(() => ({ ok: false, kind: 'invalid_grant', description: 'expired' }), []),
  );
  await assert.rejects(tm.refreshAfterRejected(connection, 'a1'), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 'connection_needs_reauth');
    assert.equal(err.status, 503);
    return true;
  });
  assert.equal(store.status, 'needs_reauth');
});

test('a token about to expire is refreshed ahead of time', async () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const store = new FakeStore({
    kind: 'oauth',
    refreshToken: 'r1',
    accessToken: 'a1',
    accessTokenExpiresAt: new Date(now + 30_000).toISOString(),
  });
  const calls: string[] = [];
  const tm = manager(
    store,
    fakeLocks(),
    fakeAdapter(
      () => ({
        ok: true,
        grant: { accessToken: 'a2', accessTokenExpiresAt: new Date(now + 1_800_000).toISOString() },
      }),
      calls,
    ),
    () => now,
  );
  assert.equal(await tm.accessToken(connection), 'a2');
  assert.equal(await tm.accessToken(connection), 'a2');
  assert.equal(calls.length, 1);
});
