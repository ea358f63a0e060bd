// The console at a laptop's width (1280 px) and a phone's (390 px), in Debian's Chromium: no page
// scrolls sideways, nothing overflows its box, even with 50 request-log rows, 40-character labels
// and a long "needs re-auth" error. Screenshots go into docs/screenshots/ when
// CRM_PROXY_SCREENSHOTS=docs, else into a temporary folder.
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { noChromium, openBrowser } from '../helpers/browser.ts';
import { type Stack, startStack } from '../helpers/stack.ts';

const SHOTS =
  process.env['CRM_PROXY_SCREENSHOTS'] === 'docs'
    ? resolve(import.meta.dirname, '../../docs/screenshots')
    : join(tmpdir(), `crm-proxy-fit-shots-${process.pid}`);
const SHOT_SUFFIX = process.env['CRM_PROXY_SCREENSHOT_SUFFIX'] ?? '';
const EMAIL = 'ops@example.com';
const PASSWORD = 'correct horse battery staple';
const LONG_LABEL = 'Northwind Traders EMEA production account'.slice(0, 40);
const LONG_ERROR =
  "refreshing the access token failed: the CRM answered 400 invalid_grant 'expired access/refresh token'; the account owner revoked the app or the refresh token expired. Reconnect the account to give the service a new grant.";

/** Elements wider than their box, and the page's own sideways scroll. Empty when everything fits. */
async function overflows(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const found = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1)
      found.push(\`page scrolls sideways: \${root.scrollWidth} px in \${root.clientWidth} px\`);
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const style = getComputedStyle(el);
      const scrolls = style.overflowX === 'auto' || style.overflowX === 'scroll';
      if (scrolls && el.scrollWidth > el.clientWidth + 1)
        found.push(
          \`\${el.tagName.toLowerCase()}.\${el.className}: scrolls \${el.scrollWidth} px in \${el.clientWidth} px\`,
        );
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.right > root.clientWidth + 1)
        found.push(
          \`\${el.tagName.toLowerCase()}.\${el.className} "\${(el.textContent ?? '').slice(0, 30)}": right edge at \${Math.round(box.right)} px\`,
        );
    }
    return found.slice(0, 8);
})()`);
}

async function seed(s: Stack): Promise<{ sfId: string; tokenId: string }> {
  const sfId = s.connectionIds.salesforce;
  await s.ctx.connections.markNeedsReauth(sfId, LONG_ERROR);
  const hs = await s.ctx.admin.listConnections();
  assert.ok(hs.length >= 2);
  const created = await s.ctx.admin.createToken({ connectionId: sfId, name: LONG_LABEL, expiresInDays: 30 });
  for (let i = 0; i < 60; i++) {
    s.ctx.requestLog.record({
      at: new Date(Date.UTC(2026, 2, 2, 9, 0, i)).toISOString(),
      method: 'POST',
      path:
        i % 3 === 0
          ? '/v1/proxy/https://example.my.salesforce.com/services/data/v62.0/sobjects/Account/describe'
          : '/v1/object/get/Account',
      status: i % 7 === 0 ? 503 : 200,
      latencyMs: 40 + i,
      crmCalls: 1,
      interface: i % 2 === 0 ? 'rest' : 'composite',
      requestId: `req_${String(i).padStart(4, '0')}_0123456789abcdef0123`,
      tokenId: created.record.id,
      connectionId: sfId,
      errorCode: i % 7 === 0 ? 'connection_needs_reauth' : null,
    });
  }
  return { sfId, tokenId: created.record.id };
}

test('every console page fits 1280 px and 390 px without sideways scrolling', {
  skip: noChromium,
}, async (t) => {
  const s = await startStack(t, { env: { CRM_PROXY_PUBLIC_URL_EU: '', CRM_PROXY_PUBLIC_URL_US: '' } });
  await s.ctx.operators.create(EMAIL, PASSWORD);
  const { sfId } = await seed(s);
  const link = await s.ctx.admin.connect.createLink({ provider: 'hubspot', label: LONG_LABEL });

  const { context, close } = await openBrowser(s.baseUrl);
  t.after(close);
  const page = await context.newPage();
  await page.goto('/console/sign-in');
  await page.fill('input[name=email]', EMAIL);
  await page.fill('input[name=password]', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/console\/connections$/);

  const pages = [
    '/console/connections',
    `/console/connections/${sfId}`,
    '/console/tokens',
    '/console/requests',
    '/console/usage',
    '/console/links',
  ];
  const problems: string[] = [];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    for (const path of pages) {
      await page.goto(path);
      for (const p of await overflows(page)) problems.push(`${width} px ${path}: ${p}`);
    }
  }
  // Shots of the two views the first hour meets most: the request log, and a connection on a phone.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/console/requests');
  assert.equal(await page.locator('tbody tr').count(), 50);
  await page.screenshot({ path: join(SHOTS, `request-log-1280${SHOT_SUFFIX}.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/console/connections/${sfId}`);
  await page.screenshot({ path: join(SHOTS, `connection-390${SHOT_SUFFIX}.png`), fullPage: true });
  const nav = await page.locator('header.top').boundingBox();
  if (nav === null || nav.height > 120) problems.push(`header ${nav?.height} px high on a phone`);
  // The Reconnect button stays on screen next to the long error.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/console/connections');
  const button = await page
    .locator(`tr[data-connection="${sfId}"] form[action$="/reconnect"] button`)
    .boundingBox();
  if (button === null || button.x + button.width > 1280)
    problems.push(`Reconnect button off screen at ${JSON.stringify(button)}`);
  // A connect link's own page on a phone: who asks, for which CRM, what is shared, a way on.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(link.url);
  assert.match((await page.textContent('h1')) ?? '', /Connect your HubSpot account/);
  for (const p of await overflows(page)) problems.push(`390 px connect link: ${p}`);
  const go = await page.locator('a.primary').boundingBox();
  if (go === null || go.x + go.width > 390) problems.push(`Continue off screen at ${JSON.stringify(go)}`);
  await page.screenshot({ path: join(SHOTS, `connect-link-390${SHOT_SUFFIX}.png`), fullPage: true });
  // Declined on the CRM's page: our page says so and leads back to the start.
  await page.click('a.primary');
  await page.click('button.deny');
  await page.waitForLoadState();
  assert.match((await page.textContent('h1')) ?? '', /Access was not granted/);
  for (const p of await overflows(page)) problems.push(`390 px declined page: ${p}`);
  await page.click('a.primary');
  assert.match((await page.textContent('h1')) ?? '', /Connect your HubSpot account/);
  assert.deepEqual(problems, []);
});
