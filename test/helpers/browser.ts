// Debian's Chromium, headless, through playwright-core (which downloads no browser of its own).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** A test's `skip` option: the reason when there is no Chromium to drive. */
export const noChromium: false | string = !existsSync(CHROMIUM) && `no ${CHROMIUM}`;

/** A fresh profile at 1280 × 800; `close` ends the browser and removes the profile. */
export async function openBrowser(
  baseURL?: string,
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'crm-proxy-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    viewport: { width: 1280, height: 800 },
    ...(baseURL === undefined ? {} : { baseURL }),
  });
  context.setDefaultTimeout(30_000);
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Connects a CRM from the console's Connections page: Connect, the sandbox's consent page, Allow,
 * then back; the new connection's id.
 */
export async function connectThroughConsent(page: Page, provider: string, label: string): Promise<string> {
  await page.goto('/console/connections');
  await page.selectOption('select[name=provider]', provider);
  await page.fill('form[action="/console/connections/connect"] input[name=label]', label);
  await page.click('[data-test=connect]');
  await page.waitForSelector('button.allow');
  await page.click('button.allow');
  await page.waitForURL(/\/console\/connections\?connected=conn_/);
  const id = new URL(page.url()).searchParams.get('connected');
  assert.ok(id);
  return id;
}
