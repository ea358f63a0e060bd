// The first run in a real browser (Debian's Chromium, headless, through playwright-core), as a new
// user meets it: the front page, the setup code from the start-up output, the first operator,
// connecting both sandbox CRMs through their consent pages, a token made on a connection's page,
// and a call with the curl command the page shows; every page checked at 1280 px and at 390 px.
// Screenshots go to docs/screenshots/ when CRM_PROXY_SCREENSHOTS=docs, else to a temporary folder.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { setupBanner } from '../../src/cli/serve.ts';
import { connectThroughConsent, noChromium, openBrowser } from '../helpers/browser.ts';
import { startStack } from '../helpers/stack.ts';

const run = promisify(execFile);
const SHOTS =
  process.env['CRM_PROXY_SCREENSHOTS'] === 'docs'
    ? resolve(import.meta.dirname, '../../docs/screenshots')
    : join(tmpdir(), `crm-proxy-first-run-shots-${process.pid}`);
mkdirSync(SHOTS, { recursive: true });
const EMAIL = 'first@example.com';
const PASSWORD = 'a long first password';

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** What does not fit the viewport: sideways scrolling, boxes past the right edge, ids broken mid-word. */
async function misfits(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const found = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1)
      found.push('page scrolls sideways: ' + root.scrollWidth + ' px in ' + root.clientWidth + ' px');
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const style = getComputedStyle(el);
      const scrolls = style.overflowX === 'auto' || style.overflowX === 'scroll';
      const box = el.getBoundingClientRect();
      if (!scrolls && box.width > 0 && box.right > root.clientWidth + 1)
        found.push(el.tagName.toLowerCase() + '.' + el.className + ' "' + (el.textContent || '').slice(0, 30) + '": right edge at ' + Math.round(box.right));
    }
    // On a wide screen an id stays one word: one line box.
    if (root.clientWidth >= 1000)
      for (const el of Array.from(document.querySelectorAll('.id')))
        if (el.getClientRects().length > 1 || el.getBoundingClientRect().height > 2 * parseFloat(getComputedStyle(el).lineHeight || '20'))
          found.push('id broken over lines: ' + el.textContent);
    return found.slice(0, 8);
  })()`);
}

/** Checks the page at 1280 and 390 px, takes its phone-width screenshot, and leaves it at 1280 px. */
async function checkWidths(page: Page, label: string, problems: string[], name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    for (const p of await misfits(page)) problems.push(`${label} at ${width} px: ${p}`);
  }
  await shot(page, `${name}-390`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('first run in the browser: front page, setup code, first operator, both CRMs, a token and its curl', {
  skip: noChromium,
}, async (t) => {
  const s = await startStack(t, { env: { CRM_PROXY_PUBLIC_URL_EU: '', CRM_PROXY_PUBLIC_URL_US: '' } });
  s.sf.org.insert('Account', [{ Name: 'First Run Co' }]);
  // What `npm start` prints while no operator exists (sandbox mode): the setup code.
  const banner = await setupBanner(s.ctx, { sandbox: true, dataDir: tmpdir() }, s.baseUrl);
  const code = /Setup code: (crmps-\S+)/.exec(banner.join('\n'))?.[1];
  assert.ok(code, banner.join('\n'));
  assert.match(banner.join('\n'), new RegExp(`${s.baseUrl}/console/setup`));

  const { context, close } = await openBrowser(s.baseUrl);
  t.after(close);
  const page = await context.newPage();
  const problems: string[] = [];
  const missing: string[] = [];
  page.on('response', (r) => {
    if (r.status() === 404) missing.push(r.url());
  });

  // The front page: what this is, the console, the API docs, /readyz, and how to start.
  await page.goto('/');
  assert.match((await page.textContent('h1')) ?? '', /crm-proxy/);
  for (const href of ['/console', '/docs', '/readyz', '/console/setup']) {
    assert.equal((await page.locator(`a[href="${href}"]`).count()) > 0, true, href);
  }
  await checkWidths(page, 'front page', problems, 'first-run-front-page');
  await shot(page, 'first-run-front-page');

  // The console link leads to the first operator's setup while there is none.
  await page.click('[data-test=console-link]');
  await page.waitForURL(/\/console\/setup$/);
  await checkWidths(page, 'setup page', problems, 'first-run-setup');
  await shot(page, 'first-run-setup');
  await page.fill('input[name=setup_code]', code);
  await page.fill('input[name=email]', EMAIL);
  await page.fill('input[name=password]', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/console\/connections\?welcome=1$/);
  assert.match((await page.textContent('.notice')) ?? '', /first operator/);
  assert.match((await page.textContent('.who')) ?? '', new RegExp(EMAIL));

  // Both CRMs through their (sandbox) consent pages.
  const sfId = await connectThroughConsent(page, 'salesforce', 'Acme Salesforce');
  const hsId = await connectThroughConsent(page, 'hubspot', 'Acme HubSpot');
  await page.goto('/console/connections');
  for (const id of [sfId, hsId]) assert.equal(await page.locator(`tr[data-connection="${id}"]`).count(), 1);
  // One same-account rule: the seeded sandbox connections reach the same org and portal.
  assert.equal(await page.locator(`tr[data-connection="${sfId}"] [data-same-account]`).count(), 1);
  assert.equal(await page.locator(`tr[data-connection="${hsId}"] [data-same-account]`).count(), 1);
  await checkWidths(page, 'connections', problems, 'first-run-connections');
  await shot(page, 'first-run-connections');

  // A token from the Salesforce connection's page belongs to it, and comes with curl and SDK.
  await page.goto(`/console/connections/${sfId}`);
  assert.equal(await page.locator('[data-same-account]').count(), 1, 'the flag on its own page');
  assert.equal(await page.locator('[data-test=reconnect]').count(), 1);
  assert.equal(await page.locator('[data-test=remove]').count(), 1);
  assert.match((await page.textContent('main')) ?? '', /Tokens made here belong to Acme Salesforce/);
  await page.fill('form[action$="/tokens"] input[name=name]', 'first script');
  await page.click('[data-test=create-token]');
  await page.waitForSelector('[data-test=new-token]');
  assert.equal(new URL(page.url()).pathname, `/console/connections/${sfId}/tokens`);
  assert.match((await page.textContent('[data-test=new-token] h2')) ?? '', /for Acme Salesforce/);
  const token = (await page.textContent('#new-token')) ?? '';
  const curl = (await page.textContent('[data-test=token-curl]')) ?? '';
  const sdk = (await page.textContent('[data-test=token-sdk]')) ?? '';
  assert.ok(curl.includes(token) && curl.startsWith('curl '), curl);
  assert.match(sdk, /require\('@crm-proxy\/client'\)/);
  const owned = await s.ctx.admin.listTokens(sfId);
  assert.equal(owned.filter((x) => x.name === 'first script').length, 1, 'the token is the connection’s');
  await checkWidths(page, 'new token', problems, 'first-run-token-created');
  await shot(page, 'first-run-token-created');

  // The copied curl, run as is: it reaches this connection's org.
  const { stdout } = await run('sh', ['-c', curl]);
  const answer = JSON.parse(stdout) as { data: { sobjects?: Array<{ name: string }> } };
  assert.ok(
    answer.data.sobjects?.some((o) => o.name === 'Account'),
    stdout.slice(0, 300),
  );
  // The call is the connection's: its page lists it among the recent requests.
  await page.goto(`/console/connections/${sfId}`);
  assert.match((await page.textContent('[data-test=request-log]')) ?? '', /POST \/v1\/describe/);

  assert.deepEqual(problems, []);
  assert.deepEqual(
    missing.filter((u) => !u.includes('/oauth/')),
    [],
    'no page or asset answers 404 (favicon included)',
  );
});
