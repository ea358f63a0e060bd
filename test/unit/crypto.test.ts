import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { CryptoError, createKeyring, needsReseal, open, seal } from '../../src/crypto/envelope.ts';
import { GENERATED_KEY_FILE, loadKeyring } from '../../src/crypto/keyring.ts';
import { BASE62, randomBase62 } from '../../src/crypto/random.ts';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };

test('seal/open round-trips and records the active key id', () => {
  const ring = createKeyring([k1, k2], 'k2');
  const sealed = seal(ring, '{"refreshToken":"s3cret"}', 'conn_a');
  assert.equal(sealed.keyId, 'k2');
  assert.match(sealed.ciphertext, /^v1\.[A-Za-z0-9+/]+=*$/);
  assert.ok(!sealed.ciphertext.includes('s3cret'));
  assert.equal(open(ring, sealed, 'conn_a'), '{"refreshToken":"s3cret"}');
});

test('the same plaintext seals differently each time (random IV)', () => {
  const ring = createKeyring([k1]);
  assert.notEqual(seal(ring, 'x', 'a').ciphertext, seal(ring, 'x', 'a').ciphertext);
});

test('open refuses other associated data, tampering, truncation and unknown keys, without echoing secrets', () => {
  const ring = createKeyring([k1]);
  const sealed = seal(ring, 'top-secret-value', 'conn_a');
  const check = (e: unknown) => e instanceof CryptoError && !e.message.includes('top-secret');
  assert.throws(() => open(ring, sealed, 'conn_b'), check);
  const raw = Buffer.from(sealed.ciphertext.slice(3), 'base64');
  raw[raw.length - 1] = raw[raw.length - 1]! ^ 1;
  assert.throws(() => open(ring, { ...sealed, ciphertext: `v1.${raw.toString('base64')}` }, 'conn_a'), check);
  assert.throws(() => open(ring, { ...sealed, ciphertext: 'v1.AAAA' }, 'conn_a'), /truncated/);
  assert.throws(() => open(ring, { ...sealed, ciphertext: 'v9.AAAA' }, 'conn_a'), /format/);
  assert.throws(
    () => open(ring, { ...sealed, keyId: 'gone' }, 'conn_a'),
    /"gone".*not in CRM_PROXY_ENCRYPTION_KEYS/,
  );
  // A different key under the same id fails authentication.
  assert.throws(() => open(createKeyring([{ id: 'k1', key: randomBytes(32) }]), sealed, 'conn_a'), check);
});

test('after rotation, old ciphertexts still open and are flagged for re-sealing', () => {
  const before = createKeyring([k1]);
  const sealed = seal(before, 'v', 'id');
  const after = createKeyring([k1, k2], 'k2');
  assert.equal(open(after, sealed, 'id'), 'v');
  assert.equal(needsReseal(after, sealed), true);
  assert.equal(needsReseal(after, seal(after, 'v', 'id')), false);
});

test('createKeyring rejects short keys and an active id that is not present', () => {
  assert.throws(() => createKeyring([{ id: 'a', key: randomBytes(16) }]), CryptoError);
  assert.throws(() => createKeyring([k1], 'k9'), CryptoError);
  assert.throws(() => createKeyring([]), CryptoError);
});

test('randomBase62 gives the requested length over the base62 alphabet, with every character reachable', () => {
  const s = randomBase62(5000);
  assert.equal(s.length, 5000);
  assert.match(s, /^[0-9A-Za-z]+$/);
  assert.equal(new Set(s).size, BASE62.length);
});

function withDir(fn: (dir: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-key-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('loadKeyring uses the configured keys and the active key id', () => {
  withDir((dir) => {
    const env = {
      CRM_PROXY_DATA_DIR: dir,
      CRM_PROXY_ENCRYPTION_KEYS: `k1:${k1.key.toString('base64')},k2:${k2.key.toString('base64')}`,
      CRM_PROXY_ENCRYPTION_KEY_ID: 'k2',
    };
    const ring = loadKeyring(loadConfig(env), { info() {}, warn() {} });
    assert.equal(ring.activeKeyId, 'k2');
    assert.deepEqual([...ring.keys.keys()], ['k1', 'k2']);
  });
});

test('sandbox mode without keys: generates a 0600 key file once, says so, and reuses it', () => {
  withDir((dir) => {
    const logs: string[] = [];
    const log = { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m) };
    const cfg = loadConfig({ CRM_PROXY_DATA_DIR: join(dir, 'data') });
    const first = loadKeyring(cfg, log);
    const file = join(dir, 'data', GENERATED_KEY_FILE);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(logs.length, 1);
    assert.match(logs[0]!, /generated a development encryption key/);
    const keyB64 = readFileSync(file, 'utf8').trim().split(':')[1]!;
    assert.ok(!logs[0]!.includes(keyB64), 'the log names the file, not the key');
    const second = loadKeyring(cfg, log);
    assert.equal(logs.length, 1, 'no second generation');
    const sealed = seal(first, 'persisted', 'x');
    assert.equal(open(second, sealed, 'x'), 'persisted');
  });
});

test('production without keys refuses to start; so does a non-sandbox setup', () => {
  withDir((dir) => {
    const log = { info() {}, warn() {} };
    // loadConfig refuses a forced sandbox in production; the keyring refuses it on its own as well.
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production', CRM_PROXY_DATA_DIR: dir, CRM_PROXY_SANDBOX: 'true' }),
      (e: unknown) => e instanceof ConfigError && /CRM_PROXY_SANDBOX cannot be on/.test(e.message),
    );
    assert.throws(
      () =>
        loadKeyring(
          { ...loadConfig({ CRM_PROXY_DATA_DIR: dir, CRM_PROXY_SANDBOX: 'true' }), production: true },
          log,
        ),
      (e: unknown) => e instanceof ConfigError && /CRM_PROXY_ENCRYPTION_KEYS is required/.test(e.message),
    );
    assert.throws(
      () => loadKeyring(loadConfig({ CRM_PROXY_DATA_DIR: dir, CRM_PROXY_SANDBOX: 'false' }), log),
      ConfigError,
    );
    assert.throws(() => statSync(join(dir, GENERATED_KEY_FILE)), /ENOENT/);
  });
});
