// The front door and the first operator: GET / as a page and as JSON, and the one-time setup code
// (long, once, refused after an operator exists, rate-limited like sign-in, expiring).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setupBanner, startupNote } from '../../src/cli/serve.ts';
import { startStack } from '../helpers/stack.ts';
import { Browser, EMAIL, PASSWORD } from './console-browser.ts';

test('GET / is a page for browsers and JSON for clients that ask for it', async (t) => {
  const s = await startStack(t);
  const page = await fetch(`${s.baseUrl}/`, {
    headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
  });
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  const text = await page.text();
  for (const href of ['/console', '/docs', '/readyz', '/console/setup'])
    assert.ok(text.includes(`href="${href}"`), href);
  assert.match(text, /\.\/bin\/crm-proxy\.mjs operators create/);
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);

  const json = await fetch(`${s.baseUrl}/`, { headers: { accept: 'application/json' } });
  assert.equal(json.status, 200);
  const body = (await json.json()) as {
    name: string;
    links: Record<string, string>;
    first_operator_needed: boolean;
  };
  assert.equal(body.name, 'crm-proxy');
  assert.deepEqual(body.links, {
    console: '/console',
    docs: '/docs',
    openapi: '/openapi.json',
    readyz: '/readyz',
  });
  assert.equal(body.first_operator_needed, true);
  // curl's default Accept gets JSON too.
  const curl = await fetch(`${s.baseUrl}/`, { headers: { accept: '*/*' } });
  assert.match(curl.headers.get('content-type') ?? '', /^application\/json/);

  const icon = await fetch(`${s.baseUrl}/favicon.ico`);
  assert.equal(icon.status, 200);
  assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
});

test('the setup code creates the first operator once, signs it in, and is refused after', async (t) => {
  let now = Date.parse('2026-03-02T09:00:00Z');
  const s = await startStack(t, { overrides: { clock: { now: () => now } } });
  const b = new Browser(s);
  // No operator: /console leads to the setup page.
  const door = await b.go('/console');
  assert.equal(door.status, 303);
  assert.equal(door.headers.get('location'), '/console/setup');

  const form = await b.go('/console/setup');
  assert.equal(form.status, 200);
  // No code issued by this instance yet: refused, and says how to get one.
  const none = await b.go('/console/setup', {
    form: { _csrf: b.csrf(form.text), setup_code: 'crmps-aaaa', email: EMAIL, password: PASSWORD },
  });
  assert.equal(none.status, 401);
  assert.match(none.text, /restart the service/);

  const issued = await s.ctx.setup.issue();
  assert.ok(issued);
  assert.match(issued.code, /^crmps(-[0-9A-Za-z]{4}){7}$/);

  const wrong = await b.go('/console/setup', {
    form: {
      _csrf: b.csrf(none.text),
      // One character changed: never the one already there (1 in 62 codes ends in x).
      setup_code: `${issued.code.slice(0, -1)}${issued.code.endsWith('x') ? 'y' : 'x'}`,
      email: EMAIL,
      password: PASSWORD,
    },
  });
  assert.equal(wrong.status, 401);
  assert.match(wrong.text, /not the setup code/);

  // A form mistake does not spend the code.
  const short = await b.go('/console/setup', {
    form: { _csrf: b.csrf(wrong.text), setup_code: issued.code, email: EMAIL, password: 'short' },
  });
  assert.equal(short.status, 400);
  assert.match(short.text, /at least 12 characters/);

  const made = await b.go('/console/setup', {
    form: { _csrf: b.csrf(short.text), setup_code: issued.code, email: EMAIL, password: PASSWORD },
  });
  assert.equal(made.status, 303, made.text);
  assert.equal(made.headers.get('location'), '/console/connections?welcome=1');
  assert.ok(b.cookies.has('crmp_console'), 'signed in');
  const signedIn = await b.go('/console/connections');
  assert.equal(signedIn.status, 200);
  assert.equal((await s.ctx.operators.list()).length, 1);

  // Once an operator exists: the code is refused, the page says so, and no new code is issued.
  const other = new Browser(s);
  const again = await other.go('/console/setup');
  assert.equal(again.status, 409);
  assert.match(again.text, /Already set up/);
  // The sign-in page's form token is of the same pre-session secret.
  const signInForm = await other.go('/console/sign-in');
  const reuse = await other.go('/console/setup', {
    form: {
      _csrf: other.csrf(signInForm.text),
      setup_code: issued.code,
      email: 'two@example.com',
      password: PASSWORD,
    },
  });
  assert.equal(reuse.status, 409);
  assert.equal((await s.ctx.operators.list()).length, 1);
  assert.equal(await s.ctx.setup.issue(), null);
  const json = (await (await fetch(`${s.baseUrl}/`)).json()) as { first_operator_needed: boolean };
  assert.equal(json.first_operator_needed, false);
  now += 1;
});

test('a setup code expires, and attempts are limited like sign-ins', async (t) => {
  let now = Date.parse('2026-03-02T09:00:00Z');
  const s = await startStack(t, { overrides: { clock: { now: () => now } } });
  const issued = await s.ctx.setup.issue();
  assert.ok(issued);
  now += 24 * 3600_000;
  const b = new Browser(s);
  let page = await b.go('/console/setup');
  page = await b.go('/console/setup', {
    form: { _csrf: b.csrf(page.text), setup_code: issued.code, email: EMAIL, password: PASSWORD },
  });
  assert.equal(page.status, 401);
  assert.match(page.text, /expired/);

  const fresh = await s.ctx.setup.issue();
  assert.ok(fresh);
  // Four more wrong attempts use up the five of the 15-minute allowance; the sixth is refused
  // without a check, even with the right code.
  for (let i = 0; i < 4; i++) {
    page = await b.go('/console/setup', {
      form: { _csrf: b.csrf(page.text), setup_code: 'crmps-wrong', email: EMAIL, password: PASSWORD },
    });
    assert.equal(page.status, 401);
  }
  page = await b.go('/console/setup', {
    form: { _csrf: b.csrf(page.text), setup_code: fresh.code, email: EMAIL, password: PASSWORD },
  });
  assert.equal(page.status, 429);
  assert.ok(Number(page.headers.get('retry-after')) > 0);
  assert.equal((await s.ctx.operators.list()).length, 0);
  // Later, the right code works.
  now += 15 * 60_000;
  page = await b.go('/console/setup');
  page = await b.go('/console/setup', {
    form: { _csrf: b.csrf(page.text), setup_code: fresh.code, email: EMAIL, password: PASSWORD },
  });
  assert.equal(page.status, 303, page.text);
});

test("the account owner's pages name the service (a setting, with its logo) and show nothing internal", async (t) => {
  const s = await startStack(t, {
    env: {
      CRM_PROXY_SERVICE_NAME: 'Globex Sync',
      CRM_PROXY_SERVICE_LOGO_URL: 'https://globex.example/logo.png',
    },
  });
  const link = await s.ctx.connect.createLink({ provider: 'hubspot', label: 'Marketing' });
  const landing = await fetch(`${s.baseUrl}${new URL(link.url).pathname}`);
  const text = await landing.text();
  assert.equal(landing.status, 200);
  assert.match(
    text,
    /<p class="brand"><img src="https:\/\/globex\.example\/logo\.png" alt=""><span>Globex Sync<\/span><\/p>/,
  );
  assert.match(text, /Globex Sync asks for access to your HubSpot account/);
  assert.match(text, /<dt>CRM<\/dt><dd><code>HubSpot<\/code><\/dd>/);
  assert.match(text, /read and write the HubSpot records your user can see/);
  assert.doesNotMatch(text, /conn_|cl_|reason|link_landing|crm-proxy/);
  assert.match(landing.headers.get('content-security-policy') ?? '', /img-src https:\/\/globex\.example;/);
  assert.equal(landing.headers.get('x-connect-outcome'), 'link_landing');
});

test('start-up output: in production the setup code goes to a 0600 file the output names, never into the output', async (t) => {
  const s = await startStack(t);
  const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-setup-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const lines = await setupBanner(s.ctx, { sandbox: false, dataDir: dir }, 'https://crm.example.com');
  const file = join(dir, 'setup-code');
  const code = readFileSync(file, 'utf8').split('\n')[0] ?? '';
  assert.match(code, /^crmps(-[0-9A-Za-z]{4}){7}$/);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const out = lines.join('\n');
  assert.ok(out.includes(file), out);
  assert.match(out, /https:\/\/crm\.example\.com\/console\/setup/);
  assert.doesNotMatch(out, /crmps-/);
  // Sandbox mode prints it; once an operator exists, nothing is issued and the file is removed.
  const sandbox = await setupBanner(s.ctx, { sandbox: true, dataDir: dir }, s.baseUrl);
  assert.match(sandbox.join('\n'), /Setup code: crmps-/);
  await s.ctx.operators.create('ops@example.com', 'correct horse battery staple');
  assert.deepEqual(await setupBanner(s.ctx, { sandbox: false, dataDir: dir }, s.baseUrl), []);
  assert.equal(existsSync(file), false);
  // Log lines held during the start are said in plain words; the listening line is the banner's own.
  assert.equal(
    startupNote('{"level":40,"msg":"generated a development key"}'),
    '  warning: generated a development key',
  );
  assert.equal(startupNote('{"level":30,"msg":"Server listening at http://127.0.0.1:1"}'), null);
});
