// The SDK installs the two ways its README gives, into an empty project, and calls the sandbox:
// from the repository's folder (`npm install --install-links <repo>/packages/client`, whose
// `prepare` step builds dist/) and from a tarball made by `npm pack`. Dependencies come from npm's
// cache when it has them (`--prefer-offline`), else from the registry.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { startStack } from '../helpers/stack.ts';
// The CommonJS and TypeScript snippets' test: both build packages/client/dist through its
// prepare step, so they run in this one file, one after the other.
import './client-commonjs.ts';

const run = promisify(execFile);
const CLIENT = resolve(import.meta.dirname, '../../packages/client');
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
// What a user writes: plain JavaScript, the package by its name.
const SCRIPT = `import { createCrmProxyClient, CrmProxyError } from '@crm-proxy/client';
const crm = createCrmProxyClient({ baseUrl: process.env.CRM_PROXY_URL, token: process.env.CRM_PROXY_TOKEN });
const records = await crm.get('Account', ['0014S000000KyjBQAS'], { fields: ['Name'] });
let code = null;
try { await crm.get('Account', ['0014S000000KyjBQAS'], { fields: ['Nmae'] }); } catch (e) { if (e instanceof CrmProxyError) code = e.code; }
console.log(JSON.stringify({ name: records[0]?.Name, code }));
`;

async function emptyProject(t: import('node:test').TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crm-proxy-sdk-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'package.json'), '{"name":"uses-the-sdk","private":true,"type":"module"}\n');
  await writeFile(join(dir, 'main.mjs'), SCRIPT);
  return dir;
}

test('the SDK installs from the repository and from an npm pack tarball, and calls the sandbox', async (t) => {
  const s = await startStack(t);
  const env = { ...process.env, CRM_PROXY_URL: s.baseUrl, CRM_PROXY_TOKEN: s.tokens.salesforce };
  const expect = async (dir: string, how: string) => {
    const { stdout } = await run(process.execPath, ['main.mjs'], { cwd: dir, env });
    assert.deepEqual(JSON.parse(stdout), { name: 'Acme Corp', code: 'unknown_field' }, how);
  };

  const fromRepo = await emptyProject(t);
  await run('npm', ['install', '--install-links', ...NPM_FLAGS, CLIENT], { cwd: fromRepo, timeout: 300_000 });
  await expect(fromRepo, 'installed from the repository folder');

  const fromTarball = await emptyProject(t);
  await run('npm', ['pack', '--pack-destination', fromTarball, '--loglevel=error'], {
    cwd: CLIENT,
    timeout: 300_000,
  });
  const tarball = (await readdir(fromTarball)).find((f) => /^crm-proxy-client-.*\.tgz$/.test(f));
  assert.ok(tarball, 'npm pack made a tarball');
  await run('npm', ['install', ...NPM_FLAGS, `./${tarball}`], { cwd: fromTarball, timeout: 300_000 });
  await expect(fromTarball, 'installed from the tarball');
});
