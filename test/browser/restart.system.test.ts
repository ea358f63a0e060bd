// A connection made in the console survives a restart of the service and its in-process sandboxes,
// as `npm start` runs them (the same data directory, the same ports, persistence left at its
// default): after the restart its token still works, through a refresh of the access token.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  contextSandboxes,
  ensureSandboxConnections,
  launcherSettings,
  type ServeSandboxes,
  startServeSandboxes,
} from '../../src/cli/sandbox-bootstrap.ts';
import { loadConfig } from '../../src/config/index.ts';
import { startService } from '../../src/main.ts';
import { noChromium, openBrowser } from '../helpers/browser.ts';

const EMAIL = 'ops@example.com';
const PASSWORD = 'correct horse battery staple';

/** A port free right now (the sandboxes must come back on the same ones, as with a fixed PORT). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  assert.ok(typeof address === 'object' && address !== null);
  return address.port;
}

test('a connection made in the console still works after a restart', {
  skip: noChromium,
}, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'crm-proxy-restart-'));
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    CRM_PROXY_DATA_DIR: dataDir,
    CRM_PROXY_SANDBOX_SF_PORT: String(await freePort()),
    CRM_PROXY_SANDBOX_HS_PORT: String(await freePort()),
    LOG_LEVEL: 'silent',
  };
  const config = loadConfig(env);
  const launcher = launcherSettings(env, config.port);
  assert.equal(launcher.persist, true, 'persistence is on by default');
  // What is still running, closed in reverse order at the end (the first stack is closed mid-test).
  const open = new Set<() => Promise<void>>();
  t.after(async () => {
    for (const close of [...open].reverse()) await close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const start = async () => {
    const sandboxes: ServeSandboxes = await startServeSandboxes(config, launcher);
    const service = await startService(config, {
      sandboxes: contextSandboxes(sandboxes),
    });
    await ensureSandboxConnections(service.ctx, sandboxes, null);
    const stop = async () => {
      await service.close();
      await sandboxes.close();
    };
    open.add(stop);
    return { sandboxes, service, stop };
  };

  const first = await start();
  await first.service.ctx.operators.create(EMAIL, PASSWORD);
  const { context, close } = await openBrowser();
  open.add(close);
  const page = await context.newPage();
  const base = first.service.baseUrl;
  await page.goto(`${base}/console/sign-in`);
  await page.fill('input[name=email]', EMAIL);
  await page.fill('input[name=password]', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/console\/connections$/);
  const ids: Record<string, string> = {};
  for (const provider of ['salesforce', 'hubspot']) {
    await page.selectOption('select[name=provider]', provider);
    await page.fill(
      'form[action="/console/connections/connect"] input[name=label]',
      `${provider} from the console`,
    );
    await page.click('[data-test=connect]');
    await page.click('button.allow');
    await page.waitForURL(/\/console\/connections\?connected=conn_/);
    ids[provider] = new URL(page.url()).searchParams.get('connected') ?? '';
  }
  const tokens: Record<string, string> = {};
  for (const [provider, id] of Object.entries(ids)) {
    tokens[provider] = (
      await first.service.ctx.admin.createToken({ connectionId: id, name: 'sync', expiresInDays: null })
    ).token;
  }
  await first.stop();
  open.delete(first.stop);

  const second = await start();
  // Every access token the sandboxes issued before expires, so each call below needs a refresh.
  for (const url of [second.sandboxes.salesforce.url, second.sandboxes.hubspot.url]) {
    assert.equal((await fetch(`${url}/__sandbox/tokens/expire`, { method: 'POST' })).status < 300, true);
  }
  const call = async (path: string, token: string, data: unknown) =>
    fetch(`${second.service.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data }),
    });
  const sf = await call('/v1/object/soql', tokens['salesforce'] ?? '', 'SELECT Id FROM Account LIMIT 1');
  assert.equal(sf.status, 200, await sf.text());
  const hs = await call('/v1/object/query/contacts', tokens['hubspot'] ?? '', { limit: 1 });
  assert.equal(hs.status, 200, await hs.text());
  // The console, after the restart, shows both connections active.
  await page.goto(`${second.service.baseUrl}/console/connections`);
  if (/sign-in/.test(page.url())) {
    await page.fill('input[name=email]', EMAIL);
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/console\/connections$/);
  }
  for (const id of Object.values(ids)) {
    assert.equal((await page.textContent(`tr[data-connection="${id}"] .badge`))?.trim(), 'active');
  }
});
