// The console's page headers, cookie flags, form tokens and request checks, and that none of
// the console's headers or cookies reach the API's answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { Browser, EMAIL, PASSWORD } from './console-browser.ts';

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
];

/** The headers every console answer carries, pages and assets alike. */
const PAGE_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

const directives = (csp: string | null) =>
  (csp ?? '')
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d !== '');

test('every console answer carries the page headers; API answers carry none of them and no cookie', async (t) => {
  const s = await startStack(t);
  await s.ctx.operators.create(EMAIL, PASSWORD);
  const b = new Browser(s);
  await b.signIn();
  for (const path of [
    '/console/sign-in',
    '/console/connections',
    '/console/assets/console.css',
    '/console/nope/x',
  ]) {
    const answer = await b.go(path);
    // Not a console page: the console's own 404, with the same headers.
    if (path === '/console/nope/x') assert.equal(answer.status, 404);
    assert.deepEqual(directives(answer.headers.get('content-security-policy')), CSP, path);
    for (const [name, value] of Object.entries(PAGE_HEADERS))
      assert.equal(answer.headers.get(name), value, `${path} ${name}`);
    // HSTS is the TLS proxy's choice for the whole host.
    assert.equal(answer.headers.get('strict-transport-security'), null);
    assert.equal(answer.headers.get('x-powered-by'), null);
    const cache = path.includes('/assets/') ? 'public, max-age=3600' : 'no-store';
    assert.equal(answer.headers.get('cache-control'), cache, path);
  }

  const answers = [
    await fetch(`${s.baseUrl}/healthz`),
    await fetch(`${s.baseUrl}/v1/describe`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.tokens.salesforce}` },
    }),
    await fetch(`${s.baseUrl}/v1/describe`, {
      method: 'POST',
      // A console cookie sent to the API is neither read nor answered.
      headers: { cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    }),
  ];
  assert.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 401],
  );
  for (const answer of answers) {
    for (const name of [...Object.keys(PAGE_HEADERS), 'content-security-policy', 'cache-control']) {
      assert.equal(answer.headers.get(name), null, `${answer.url} ${name}`);
    }
    assert.deepEqual(answer.headers.getSetCookie(), []);
  }
});

test('console cookies: flags kept, Secure behind TLS, cleared with Max-Age=0; a form token is bound to its session', async (t) => {
  const s = await startStack(t, { env: { CRM_PROXY_BEHIND_TLS: 'true' } });
  await s.ctx.operators.create(EMAIL, PASSWORD);
  const b = new Browser(s);
  const form = await b.go('/console/sign-in');
  assert.match(form.setCookies[0] ?? '', /^crmp_console_pre=[^;]+; Path=\/console; HttpOnly; /);
  assert.match(form.setCookies[0] ?? '', /; Secure(;|$)/);
  assert.match(form.setCookies[0] ?? '', /; SameSite=Strict(;|$)/);
  const signedIn = await b.go('/console/sign-in', {
    form: { _csrf: b.csrf(form.text), email: EMAIL, password: PASSWORD },
  });
  const pre = signedIn.setCookies.find((c) => c.startsWith('crmp_console_pre='));
  assert.match(
    pre ?? '',
    /^crmp_console_pre=; Max-Age=0; Path=\/console; /,
    'the pre-session secret is dropped',
  );
  const session = signedIn.setCookies.find((c) => c.startsWith('crmp_console=')) ?? '';
  for (const flag of ['Path=/', 'HttpOnly', 'Secure', 'SameSite=Strict'])
    assert.ok(session.split('; ').includes(flag), flag);
  assert.doesNotMatch(session, /Max-Age|Expires/, 'a session cookie: gone when the browser closes');

  // Each render has a fresh token; any of them works with its own session, none with another's.
  const page = await b.go('/console/tokens');
  const again = await b.go('/console/tokens');
  assert.notEqual(b.csrf(page.text), b.csrf(again.text));
  const other = new Browser(s);
  await other.signIn();
  const form2 = { connection_id: s.connectionIds.salesforce, name: 'cross', _csrf: b.csrf(page.text) };
  const refused = await other.go('/console/tokens', { form: form2 });
  assert.equal(refused.status, 403);
  assert.match(refused.text, /Form expired/);
  assert.equal((await b.go('/console/tokens', { form: form2 })).status, 201);

  const out = await b.go('/console/sign-out', { form: { _csrf: b.csrf(again.text) } });
  assert.match(
    out.setCookies.find((c) => c.startsWith('crmp_console=')) ?? '',
    /^crmp_console=; Max-Age=0; Path=\/; /,
  );
  // Signed out, a form is refused before it is read, and the next request on the socket still works.
  const late = await b.go('/console/tokens', { form: form2 });
  assert.equal(late.status, 403);
  assert.match(late.text, /Signed out/);
  assert.equal((await b.go('/console/sign-in')).status, 200);
});

test('console queries, paths and forms are checked by their schemas: the page names the field', async (t) => {
  const s = await startStack(t);
  await s.ctx.operators.create(EMAIL, PASSWORD);
  const b = new Browser(s);
  // Signed out, a bad query is not looked at: sign in first.
  assert.equal((await b.go('/console/requests?status=9xx')).status, 303);
  await b.signIn();
  const bad = await b.go('/console/requests?status=9xx');
  assert.equal(bad.status, 400);
  assert.match(bad.headers.get('content-type') ?? '', /text\/html/);
  assert.match(bad.text, /The address is invalid: status must match/);
  assert.equal((await b.go('/console/requests?status=&request_id=&connection_id=&token_id=')).status, 200);
  assert.equal((await b.go('/console/connections/not%20an%20id')).status, 404);
  assert.equal((await b.go('/console/assets/console.txt')).status, 404);
  const csrf = b.csrf((await b.go('/console/tokens')).text);
  const noConnection = await b.go('/console/tokens', { form: { _csrf: csrf, name: 'x' } });
  assert.equal(noConnection.status, 400);
  assert.match(noConnection.text, /The form is invalid: connection_id is required/);
});

test('the same-site reload page escapes the address it reloads', async (t) => {
  const s = await startStack(t);
  const answer = await fetch(`${s.baseUrl}/console/connections?x=%22%3E%3Cscript%3E`, {
    headers: { 'sec-fetch-site': 'cross-site' },
    redirect: 'manual',
  });
  const text = await answer.text();
  assert.equal(answer.status, 200);
  assert.doesNotMatch(text, /<script>/);
  assert.match(text, /url=\/console\/connections\?x=%22%3E%3Cscript%3E&#38;reloaded=1"/);
});
