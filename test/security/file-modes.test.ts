import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeSandboxFile } from '../../src/cli/sandbox-bootstrap.ts';
import { GENERATED_KEY_FILE } from '../../src/crypto/keyring.ts';
import { SQLITE_FILE } from '../../src/store/db.ts';
import { startStack } from '../helpers/stack.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;

function assertPrivate(dir: string, expectFiles: string[]): void {
  assert.equal(modeOf(dir).toString(8), '700', `${dir} mode`);
  const files = readdirSync(dir);
  for (const name of expectFiles) assert.ok(files.includes(name), `${name} exists (got ${files.join(', ')})`);
  for (const name of files) assert.equal(modeOf(join(dir, name)).toString(8), '600', `${name} mode`);
}

async function parentDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'crm-proxy-modes-'));
  t.after(() => rm(parent, { recursive: true, force: true }));
  return parent;
}

test('a new data directory is 0700 and every file in it 0600, WAL and SHM included', {
  skip: process.platform === 'win32',
}, async (t) => {
  const dataDir = join(await parentDir(t), 'data');
  const s = await startStack(t, { env: { CRM_PROXY_DATA_DIR: dataDir } });
  // A write, so the WAL has content; then files written later (sandbox.json).
  const insert = await s.api('/v1/object/insert/Account', { body: { data: [{ Name: 'Modes' }] } });
  assert.equal(insert.status, 200);
  writeSandboxFile(dataDir, {
    base_url: s.baseUrl,
    tokens: s.tokens,
    sandboxes: {
      salesforce: { url: s.sf.url, access_token: 'x' },
      hubspot: { url: s.hs.url, access_token: 'y' },
    },
  });
  assertPrivate(dataDir, [
    SQLITE_FILE,
    `${SQLITE_FILE}-wal`,
    `${SQLITE_FILE}-shm`,
    GENERATED_KEY_FILE,
    'sandbox.json',
  ]);
});

test('loose modes on an existing data directory and its files are fixed at start', {
  skip: process.platform === 'win32',
}, async (t) => {
  const dataDir = join(await parentDir(t), 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  for (const name of ['sandbox.json', 'notes.txt']) {
    writeFileSync(join(dataDir, name), '{}\n');
    chmodSync(join(dataDir, name), 0o644);
  }
  const first = await startStack(t, { env: { CRM_PROXY_DATA_DIR: dataDir } });
  await first.close();
  // The store's files loosened after a first start are fixed by the next one.
  for (const name of readdirSync(dataDir)) chmodSync(join(dataDir, name), 0o644);
  chmodSync(dataDir, 0o755);
  const s = await startStack(t, { env: { CRM_PROXY_DATA_DIR: dataDir } });
  const insert = await s.api('/v1/object/insert/Account', { body: { data: [{ Name: 'Modes' }] } });
  assert.equal(insert.status, 200);
  assertPrivate(dataDir, [SQLITE_FILE, GENERATED_KEY_FILE, 'sandbox.json', 'notes.txt']);
});
