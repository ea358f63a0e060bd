import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { Browser, EMAIL, PASSWORD } from './console-browser.ts';

test('operators sign in with a session cookie; every POST needs the session’s CSRF token; sign-out ends the session', async (t) => {
  const s = await startStack(t);
  await s.ctx.operators.create(EMAIL, PASSWORD);
  const b = new Browser(s);

  const anonymous = await b.go('/console/connections');
  assert.equal(anonymous.status, 303);
  assert.equal(anonymous.headers.get('location'), '/console/sign-in');

  const signedIn = await b.signIn();
  assert.equal(signedIn.status, 303);
  const session = signedIn.setCookies.find((c) => c.startsWith('crmp_console='));
  assert.match(session ?? '', /; Path=\/; HttpOnly; SameSite=Strict$/, 'no Secure flag over plain http');

  const page = await b.go('/console/connections');
  assert.equal(page.status, 200);
  const csp = page.headers.get('content-security-policy') ?? '';
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
  assert.doesNotMatch(page.text, /<script(?![^>]*\bsrc=)/, 'no inline script');
  assert.match(page.text, /Salesforce/);
  assert.match(page.text, /\/oauth\/callback/);
  const csrf = b.csrf(page.text);

  const form = { connection_id: s.connectionIds.salesforce, name: 'from the console' };
  assert.equal((await b.go('/console/tokens', { form })).status, 403, 'no CSRF token');
  assert.equal(
    (await b.go('/console/tokens', { form: { ...form, _csrf: `${csrf.slice(1)}x` } })).status,
    403,
    'wrong CSRF token',
  );
  assert.equal((await s.ctx.admin.listTokens(s.connectionIds.salesforce)).length, 1, 'nothing was created');

  const created = await b.go('/console/tokens', { form: { ...form, _csrf: csrf } });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get('cache-control'), 'no-store');
  const token = /<code id="new-token">([^<]+)<\/code>/.exec(created.text)?.[1] ?? '';
  assert.equal((await s.api('/v1/describe', { token })).status, 200, 'the token shown once works');
  const listed = await b.go('/console/tokens');
  assert.ok(!listed.text.includes(token), 'the secret is not shown again');

  const signOut = await b.go('/console/sign-out', { form: { _csrf: csrf } });
  assert.equal(signOut.status, 303);
  assert.equal((await b.go('/console/tokens')).status, 303, 'signed out');
  // The old cookie is dead in the store too, not only in this browser.
  const replay = await fetch(`${s.baseUrl}/console/tokens`, {
    headers: { cookie: `crmp_console=${session?.split(';')[0]?.split('=')[1]}` },
    redirect: 'manual',
  });
  assert.equal(replay.status, 303);
});

test('a wrong password and an unknown email get the same answer; sign-in attempts are rate limited', async (t) => {
  const s = await startStack(t, { env: { CRM_PROXY_BEHIND_TLS: 'true' } });
  await s.ctx.operators.create(EMAIL, PASSWORD);
  const b = new Browser(s);
  const wrongPassword = await b.signIn(EMAIL, 'not the password at all');
  const unknownEmail = await b.signIn('nobody@example.com', PASSWORD);
  assert.equal(wrongPassword.status, 401);
  assert.equal(unknownEmail.status, 401);
  const message = (text: string) => /role="alert">([^<]+)</.exec(text)?.[1];
  assert.equal(message(wrongPassword.text), 'Wrong email or password.');
  assert.equal(message(unknownEmail.text), message(wrongPassword.text));

  // Five attempts per account, then 429 with Retry-After, even with the right password.
  for (let i = 0; i < 4; i++) assert.equal((await b.signIn(EMAIL, 'still wrong password')).status, 401);
  const limited = await b.signIn();
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers.get('retry-after')) > 0);
  assert.match(message(limited.text) ?? '', /Too many sign-in attempts/);

  // Behind a TLS proxy the session cookie is Secure.
  await s.ctx.operators.create('second@example.com', PASSWORD);
  const ok = await new Browser(s).signIn('second@example.com', PASSWORD);
  assert.match(ok.setCookies.find((c) => c.startsWith('crmp_console=')) ?? '', /; Secure(;|$)/);
});

test('the sign-in form itself needs its CSRF token', async (t) => {
  const s = await startStack(t);
  await s.ctx.operators.create(EMAIL, PASSWORD);
  const b = new Browser(s);
  await b.go('/console/sign-in');
  const forged = await b.go('/console/sign-in', { form: { email: EMAIL, password: PASSWORD } });
  assert.equal(forged.status, 403);
  assert.ok(!forged.setCookies.some((c) => c.startsWith('crmp_console=')));
});

test('Connect and Re-connect start the OAuth flow: a redirect to the consent page with the flow’s binding cookie', async (t) => {
  const s = await startStack(t);
  await s.ctx.operators.create(EMAIL, PASSWORD);
  const b = new Browser(s);
  await b.signIn();
  const csrf = b.csrf((await b.go('/console/connections')).text);

  const connect = await b.go('/console/connections/connect', {
    form: { _csrf: csrf, provider: 'hubspot', label: 'New' },
  });
  assert.equal(connect.status, 303);
  assert.ok(connect.headers.get('location')?.startsWith(s.hs.url), connect.headers.get('location') ?? '');
  assert.ok(connect.setCookies.some((c) => c.includes('Path=/oauth') && /HttpOnly/.test(c)));

  const reconnect = await b.go(`/console/connections/${s.connectionIds.salesforce}/reconnect`, {
    form: { _csrf: csrf },
  });
  assert.equal(reconnect.status, 303);
  assert.ok(reconnect.headers.get('location')?.startsWith(s.sf.url));

  const unknown = await b.go('/console/connections/connect', { form: { _csrf: csrf, provider: 'nope' } });
  assert.ok(unknown.status >= 400 && unknown.status < 500, String(unknown.status));
  assert.match(unknown.text, /nope|provider/i);
  assert.match(unknown.headers.get('content-type') ?? '', /text\/html/);
});

test('a console page reached from another site without the Strict cookie reloads once, same-site, before sending to sign-in', async (t) => {
  const s = await startStack(t);
  const first = await fetch(`${s.baseUrl}/console/connections?connected=conn_x`, {
    headers: { 'sec-fetch-site': 'cross-site' },
    redirect: 'manual',
  });
  assert.equal(first.status, 200);
  assert.match(
    await first.text(),
    /http-equiv="refresh" content="0;url=\/console\/connections\?connected=conn_x&#38;reloaded=1"/,
  );
  const again = await fetch(`${s.baseUrl}/console/connections?connected=conn_x&reloaded=1`, {
    headers: { 'sec-fetch-site': 'cross-site' },
    redirect: 'manual',
  });
  assert.equal(again.status, 303);
});
