// The operator console in a real browser: Debian's Chromium, headless, driven by playwright-core.
// It signs in, connects both sandbox CRMs through their consent pages, creates a token, uses it,
// finds the call in the request log and the usage chart, uses a connect link twice, checks CSRF and
// CSP, signs out, and takes a screenshot of each page: into docs/console/ when
// CRM_PROXY_SCREENSHOTS=docs (how the pictures in the docs are refreshed), else into a temporary
// folder, so that a test run leaves the working tree as it found it.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { connectThroughConsent } from '../helpers/browser.ts';
import { type Stack, startStack } from '../helpers/stack.ts';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const SHOTS =
  process.env['CRM_PROXY_SCREENSHOTS'] === 'docs'
    ? resolve(import.meta.dirname, '../../docs/console')
    : join(tmpdir(), `crm-proxy-console-shots-${process.pid}`);
const EMAIL = 'ops@example.com';
const PASSWORD = 'correct horse battery staple';
// Seeded time: the pages show the same instants on every run.
const START = Date.parse('2026-03-02T09:30:00Z');

async function launch(t: import('node:test').TestContext, baseURL: string): Promise<BrowserContext> {
  const profile = await mkdtemp(join(tmpdir(), 'crm-proxy-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 800 },
    baseURL,
  });
  t.after(async () => {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  });
  return context;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Connects a CRM through its consent page; the notice names the new connection. */
async function connectAndSeeNotice(page: Page, provider: string, label: string): Promise<string> {
  const id = await connectThroughConsent(page, provider, label);
  assert.match((await page.textContent('.notice')) ?? '', new RegExp(id));
  return id;
}

test('an operator connects both CRMs, creates a token, and sees its calls in the console', {
  skip: !existsSync(CHROMIUM) && `no ${CHROMIUM}`,
}, async (t) => {
  const s = await startStack(t, {
    // No public URL: the CRMs send the browser back to the local listener.
    env: { CRM_PROXY_PUBLIC_URL_EU: '', CRM_PROXY_PUBLIC_URL_US: '' },
    overrides: { clock: { now: () => START + (Date.now() - realStart) } },
  });
  // The stack's own bootstrap connections are not part of this story.
  for (const id of Object.values(s.connectionIds)) await s.ctx.admin.removeConnection(id);
  await s.ctx.operators.create(EMAIL, PASSWORD);
  s.sf.org.insert('Account', [{ Name: 'Acme' }]);

  const context = await launch(t, s.baseUrl);
  const page = await context.newPage();
  const weights = new Map<string, number>();
  page.on('response', async (response) => {
    const type = response.headers()['content-type'] ?? '';
    if (/text\/html|javascript|text\/css/.test(type)) {
      const body = await response.body().catch(() => Buffer.alloc(0));
      weights.set(response.url(), body.length);
    }
  });
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  context.setDefaultTimeout(30_000);
  await page.goto(`${s.baseUrl}/console`);

  // Sign in.
  assert.match(page.url(), /\/console\/sign-in$/);
  await shot(page, 'sign-in');
  await page.fill('input[name=email]', EMAIL);
  await page.fill('input[name=password]', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/console\/connections$/);
  assert.equal(await page.getAttribute('html', 'data-console-js'), 'ready', 'the console script ran');
  assert.equal(await page.locator('script:not([src])').count(), 0, 'no inline script');

  // First load after sign-in: HTML, script and style of /console/connections.
  weights.clear();
  await page.reload();
  await page.waitForLoadState('networkidle');
  const firstLoad = [...weights.values()].reduce((a, b) => a + b, 0);
  t.diagnostic(
    `console first load after sign-in: ${firstLoad} bytes (HTML+JS+CSS, uncompressed, ${weights.size} files)`,
  );
  assert.ok(firstLoad < 64 * 1024, `first load ${firstLoad} bytes`);

  // Connect both sandbox CRMs through their consent pages (the stand-ins for the real ones).
  const sfId = await connectAndSeeNotice(page, 'salesforce', 'Acme');
  const hsId = await connectAndSeeNotice(page, 'hubspot', 'Globex');

  // A week of earlier traffic (seeded, the same on every run) so that the chart has a shape.
  const seeded = seedWeek(s, { [sfId]: 3, [hsId]: 1 });

  // Create a token for the Salesforce connection; it is shown once, with a copy button.
  await page.goto('/console/tokens');
  await page.selectOption('select[name=connection_id]', sfId);
  await page.fill('form[action="/console/tokens"] input[name=name]', 'nightly sync');
  await page.click('[data-test=create-token]');
  const token = ((await page.textContent('#new-token')) ?? '').trim();
  assert.match(token, /^crmp_eu_/);
  assert.equal(await page.locator('[data-copy=new-token]').count(), 1);
  await shot(page, 'token-created');

  // An API call with it, and one that fails, then both in the request log.
  const ok = await s.api<{ records: unknown[] }>('/v1/object/soql', {
    token,
    body: { data: 'SELECT Id, Name FROM Account' },
  });
  assert.equal(ok.status, 200);
  const requestId = ok.headers.get('x-request-id') ?? '';
  assert.equal((await s.api('/v1/object/get/Account', { token, body: { data: {} } })).status, 400);
  const hsToken = (await s.ctx.admin.createToken({ connectionId: hsId, name: 'crm sync', expiresInDays: 90 }))
    .token;
  assert.equal(
    (await s.api('/v1/object/get/contacts', { token: hsToken, body: { data: { ids: ['1'] } } })).status,
    200,
  );

  await page.goto('/console/requests');
  assert.equal(await page.locator(`tr[data-request-id="${requestId}"]`).count(), 1);
  await shot(page, 'request-log');
  await page.click('[data-test=older]');
  await page.waitForURL(/before=/);
  assert.equal(await page.locator(`tr[data-request-id="${requestId}"]`).count(), 0, 'older entries only');
  assert.equal(await page.locator('tbody tr').count(), 50);
  await page.goto('/console/requests');
  await page.fill('input[name=request_id]', requestId);
  await page.click('form[action="/console/requests"] button[type=submit]');
  await page.waitForURL(/request_id=/);
  assert.equal(await page.locator('tbody tr').count(), 1);
  await page.goto('/console/requests?status=4xx');
  assert.equal(await page.locator('tbody tr').count(), 1);
  assert.match((await page.textContent('tbody tr')) ?? '', /400/);

  // The usage chart counts them.
  await page.goto('/console/usage');
  const totals = await page
    .locator('[data-total-requests]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-total-requests')));
  assert.deepEqual(totals, [String((seeded[sfId] ?? 0) + 2), String((seeded[hsId] ?? 0) + 1)]);
  await shot(page, 'usage');

  await page.goto(`/console/connections/${sfId}`);
  assert.equal(await page.locator(`tr[data-request-id="${requestId}"]`).count(), 1);
  await shot(page, 'connection');
  await page.goto('/console/tokens');
  await shot(page, 'tokens');

  // CSRF: a POST from this signed-in browser without the token, or with a wrong one, is refused.
  const noToken = await context.request.post(`${s.baseUrl}/console/tokens`, {
    form: { connection_id: sfId },
  });
  assert.equal(noToken.status(), 403);
  const wrongToken = await context.request.post(`${s.baseUrl}/console/tokens`, {
    form: { connection_id: sfId, _csrf: 'x'.repeat(43) },
  });
  assert.equal(wrongToken.status(), 403);
  const csp = noToken.headers()['content-security-policy'] ?? '';
  assert.match(csp, /script-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline/);

  // A connect link works once.
  await page.goto('/console/links');
  await page.selectOption('form[action="/console/links"] select[name=provider]', 'hubspot');
  await page.fill('form[action="/console/links"] input[name=label]', 'Initech');
  await page.click('[data-test=create-link]');
  const link = ((await page.textContent('#new-link')) ?? '').trim();
  assert.match(link, /\/connect\//);
  await shot(page, 'connect-links');
  const owner = await context.newPage();
  await owner.goto(link);
  // Our landing page names the service and the CRM before the CRM's consent page.
  assert.match((await owner.textContent('h1')) ?? '', /Connect your HubSpot account/);
  await owner.click('a.primary');
  await owner.click('button.allow');
  await owner.waitForLoadState();
  // The account owner's page: connected, and nothing internal (no connection id, no reason code).
  assert.match((await owner.textContent('h1')) ?? '', /HubSpot connected/);
  assert.doesNotMatch((await owner.textContent('body')) ?? '', /conn_|reason/);
  const second = await owner.goto(link);
  assert.ok((second?.status() ?? 0) >= 400, 'a used link is refused');
  assert.match((await owner.textContent('body')) ?? '', /used|no longer|already/i);
  await owner.close();

  // Reconnect in place: the same connection, and its token keeps working.
  await page.goto('/console/connections');
  await page.click(`tr[data-connection="${sfId}"] form[action$="/reconnect"] button`);
  await page.click('button.allow');
  await page.waitForURL(/\/console\/connections\?reconnected=/);
  assert.match((await page.textContent('.notice')) ?? '', /Reconnected/);
  assert.equal((await s.api('/v1/describe', { token })).status, 200);

  await page.goto('/console/connections');
  assert.equal(await page.locator('tr[data-connection]').count(), 3);
  await shot(page, 'connections');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await shot(page, 'connections-phone');
  await page.setViewportSize({ width: 1280, height: 800 });

  // Sign out: the console is closed to this browser again.
  await page.click('header form[action="/console/sign-out"] button');
  await page.waitForURL(/\/console\/sign-in$/);
  await page.goto('/console/tokens');
  assert.match(page.url(), /\/console\/sign-in$/);
  assert.deepEqual(violations, []);
});

const realStart = Date.now();

/** Requests per hour over the 7 days before START: a daily rhythm, a few 503s; returns the totals. */
function seedWeek(s: Stack, scale: Record<string, number>): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const [connectionId, factor] of Object.entries(scale)) {
    totals[connectionId] = 0;
    for (let h = 160; h >= 1; h--) {
      const at = new Date(START - h * 3600_000);
      const hour = at.getUTCHours();
      const busy = hour >= 7 && hour <= 18 ? 4 + ((h * 7) % 5) : (h * 3) % 2;
      for (let i = 0; i < busy * factor; i++) {
        const failed = (h + i) % 37 === 0;
        s.ctx.requestLog.record({
          at: new Date(at.getTime() + i * 1000).toISOString(),
          method: 'POST',
          path: '/v1/object/get/Account',
          status: failed ? 503 : 200,
          latencyMs: 40 + ((h + i) % 60),
          crmCalls: 1,
          interface: null,
          requestId: `req_seed_${connectionId.slice(5, 9)}_${h}_${i}`,
          tokenId: null,
          connectionId,
          errorCode: failed ? 'connection_needs_reauth' : null,
        });
        totals[connectionId] += 1;
      }
    }
  }
  return totals;
}
