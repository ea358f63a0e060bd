// The API reference at /docs in a real browser: Debian's Chromium, headless, driven by
// playwright-core. At 1280 and 390 pixels wide the page must not scroll sideways; "Try it out" with a
// sandbox token sends a request to the running service and shows the sandbox's answer. Screenshots go
// to docs/api-reference/ when CRM_PROXY_SCREENSHOTS=docs (how the pictures in the docs are
// refreshed), else to a temporary folder.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { startStack } from '../helpers/stack.ts';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const SHOTS =
  process.env['CRM_PROXY_SCREENSHOTS'] === 'docs'
    ? resolve(import.meta.dirname, '../../docs/api-reference')
    : join(tmpdir(), `crm-proxy-docs-shots-${process.pid}`);

interface Overflow {
  scrollWidth: number;
  clientWidth: number;
  /** The elements reaching past the right edge, to say what to fix. */
  wide: string[];
}

// A string runs in the page, where `document` exists (this file is type-checked without the DOM).
const MEASURE = `(() => {
  const root = document.documentElement;
  const name = (e) => e.tagName.toLowerCase() + '.' + [...e.classList].join('.');
  const wide = [...document.querySelectorAll('body *')]
    .map((e) => [e, e.getBoundingClientRect().right + (parseFloat(getComputedStyle(e).marginRight) || 0)])
    .filter(([, right]) => right > root.clientWidth + 0.5)
    .map(([e, right]) => name(e) + ' ' + Math.round(right));
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(n);
    const right = range.getBoundingClientRect().right;
    if (right > root.clientWidth + 0.5) wide.push('text in ' + name(n.parentElement) + ' ' + Math.round(right) + ': ' + n.textContent.slice(0, 40));
  }
  return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide: wide.slice(0, 8) };
})()`;

async function overflow(page: Page): Promise<Overflow> {
  return page.evaluate<Overflow>(MEASURE);
}

test('/docs: the API reference fits 1280 and 390 pixels and its "try it" calls the sandbox', {
  skip: !existsSync(CHROMIUM) && `no ${CHROMIUM}`,
}, async (t) => {
  const s = await startStack(t);
  s.sf.org.insert('Account', [{ Name: 'Tried from the docs' }]);
  await mkdir(SHOTS, { recursive: true });
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  t.after(async () => {
    await browser.close();
    if (process.env['CRM_PROXY_SCREENSHOTS'] !== 'docs') await rm(SHOTS, { recursive: true, force: true });
  });

  const problems: string[] = [];
  const offsite: string[] = [];
  const origin = new URL(s.baseUrl).origin;

  for (const width of [1280, 390]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`${width}px: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`${width}px: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) offsite.push(r.url());
    });
    await page.goto(`${s.baseUrl}/docs`);
    await page.waitForSelector('.opblock-tag-section');
    await page.waitForSelector('#operations-Records-getRecords');
    // The server picker lists this instance first.
    assert.equal(await page.inputValue('.servers select'), s.baseUrl);
    const wide = await overflow(page);
    assert.ok(wide.scrollWidth <= wide.clientWidth, `${width}px: ${JSON.stringify(wide)}`);
    await page.screenshot({ path: join(SHOTS, `docs-${width}.png`) });

    // Authorize with the sandbox token, open "describe an object", try it out.
    await page.click('button.authorize');
    await page.fill('.modal-ux input[type=text], .modal-ux input[type=password]', s.tokens.salesforce);
    await page.click('.modal-ux .auth-btn-wrapper button.authorize');
    await page.click('.modal-ux button.btn-done');
    const op = page.locator('#operations-Records-getRecords');
    await op.locator('.opblock-summary').click();
    await op.locator('button.try-out__btn').click();
    const id = s.sf.org.query("SELECT Id FROM Account WHERE Name = 'Tried from the docs'").records[0]?.['Id'];
    assert.ok(typeof id === 'string');
    await op
      .locator('textarea.body-param__text')
      .fill(JSON.stringify({ data: { ids: [id], fields: ['Name'] } }));
    await op.locator('button.execute').click();
    const status = op.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    assert.equal((await status.textContent())?.trim(), '200');
    const answer =
      (await op.locator('.live-responses-table tbody .response-col_description pre').first().textContent()) ??
      '';
    assert.match(answer, /Tried from the docs/);
    const after = await overflow(page);
    assert.ok(after.scrollWidth <= after.clientWidth, `${width}px after try-it: ${JSON.stringify(after)}`);
    // The answer at the top of the screen: the curl line above it, which shows the token, stays out.
    await op
      .locator('.live-responses-table')
      .first()
      .evaluate((el) =>
        (el as unknown as { scrollIntoView(o: object): void }).scrollIntoView({ block: 'start' }),
      );
    await page.screenshot({ path: join(SHOTS, `docs-${width}-try-it.png`) });
    await context.close();
  }
  assert.deepEqual(offsite, [], 'nothing is loaded from another origin');
  assert.deepEqual(problems, []);
});
