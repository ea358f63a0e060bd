// The console's and the reference's answers against requests a browser would not send on its own:
// an absolute-form target, unknown paths, cross-site form posts, a planted pre-sign-in cookie.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Tokens from '@fastify/csrf';
import { openRaw, parseAnswer, requestHead } from '../helpers/raw-socket.ts';
import { startStack } from '../helpers/stack.ts';
import { Browser, EMAIL, PASSWORD } from './console-browser.ts';

async function raw(baseUrl: string, method: string, target: string, headers: Record<string, string>) {
  const client = await openRaw(baseUrl);
  client.write(requestHead(method, target, { connection: 'close', ...headers }));
  await client.closed(10_000, `${method} ${target}`);
  return parseAnswer(client.received());
}

test('the same-site reload page is built from the path: an absolute-form target or a Host header do not reach it', async (t) => {
  const s = await startStack(t);
  const absolute = await raw(s.baseUrl, 'GET', 'http://evil.example/console/connections?connected=conn_x', {
    'sec-fetch-site': 'cross-site',
  });
  assert.equal(absolute.status, 200);
  assert.doesNotMatch(absolute.body, /evil\.example/);
  assert.match(
    absolute.body,
    /content="0;url=\/console\/connections\?connected=conn_x&#38;reloaded=1"/,
    absolute.body,
  );
  const doubled = await raw(s.baseUrl, 'GET', '/console/connections', {
    'sec-fetch-site': 'cross-site',
    'x-forwarded-host': 'evil.example',
  });
  assert.match(doubled.body, /content="0;url=\/console\/connections\?reloaded=1"/);
  // The reloaded answer of an absolute-form target sends to sign-in, a path as well.
  const again = await raw(s.baseUrl, 'GET', 'http://evil.example/console/connections?reloaded=1', {
    'sec-fetch-site': 'cross-site',
  });
  assert.equal(again.status, 303);
  assert.equal(again.headers['location'], '/console/sign-in');
});

test('unknown console and reference paths answer with the security headers; /docs sends no referrer', async (t) => {
  const s = await startStack(t);
  for (const path of ['/console/nope/x', '/console/operators/op_x/nothing', '/docs/nope', '/docs']) {
    const answer = await fetch(`${s.baseUrl}${path}`, { redirect: 'manual' });
    assert.equal(answer.headers.get('referrer-policy'), 'no-referrer', path);
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', path);
    assert.equal(answer.headers.get('x-frame-options'), 'DENY', path);
    assert.match(answer.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, path);
    if (path !== '/docs') assert.equal(answer.status, 404, path);
  }
  const docs = await fetch(`${s.baseUrl}/docs/static/index.html`);
  assert.equal(docs.status, 200);
  assert.equal(docs.headers.get('referrer-policy'), 'no-referrer');
});

test('console form posts with a cross-site Origin are refused, signed in or not', async (t) => {
  const s = await startStack(t);
  await s.ctx.operators.create(EMAIL, PASSWORD);
  const b = new Browser(s);
  const form = await b.go('/console/sign-in');
  const cookie = () => [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const post = (
    path: string,
    body: Record<string, string>,
    origin: string | null,
    extra: Record<string, string> = {},
  ) =>
    fetch(`${s.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: cookie(),
        'content-type': 'application/x-www-form-urlencoded',
        ...(origin === null ? {} : { origin }),
        ...extra,
      },
      body: new URLSearchParams(body).toString(),
    });
  const signIn = { _csrf: b.csrf(form.text), email: EMAIL, password: PASSWORD };
  const crossSignIn = await post('/console/sign-in', signIn, 'https://evil.example');
  assert.equal(crossSignIn.status, 403);
  assert.match(await crossSignIn.text(), /another site/);
  assert.equal(crossSignIn.headers.getSetCookie().filter((c) => c.startsWith('crmp_console=')).length, 0);
  // An opaque origin is what the browser sends for the console's own no-referrer pages; the
  // browser's own word on where the form came from decides then.
  const opaque = { 'sec-fetch-site': 'cross-site' };
  assert.equal((await post('/console/sign-in', signIn, 'null', opaque)).status, 403, 'cross-site');
  const sibling = { 'sec-fetch-site': 'same-site' };
  assert.equal((await post('/console/sign-in', signIn, 'null', sibling)).status, 403, 'a sibling site');

  const same = await post('/console/sign-in', signIn, new URL(s.baseUrl).origin);
  assert.equal(same.status, 303, 'the service’s own origin');
  for (const line of same.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    if (/Max-Age=0/.test(line)) b.cookies.delete(pair.slice(0, eq));
    else b.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  const csrf = b.csrf((await b.go('/console/tokens')).text);
  const token = { _csrf: csrf, connection_id: s.connectionIds.salesforce, name: 'x' };
  const cross = await post('/console/tokens', token, 'https://evil.example');
  assert.equal(cross.status, 403);
  assert.equal((await s.ctx.admin.listTokens(s.connectionIds.salesforce)).length, 1, 'nothing created');
  assert.equal((await post('/console/tokens', token, null)).status, 201, 'no Origin: an older client');
});

test('the sign-in form’s CSRF secret is the server’s: a cookie the client brought is replaced, not used', async (t) => {
  const s = await startStack(t);
  await s.ctx.operators.create(EMAIL, PASSWORD);
  // An attacker who can plant a cookie (a sibling subdomain) chooses the secret and makes a
  // token of it with the same library, then posts the form from the victim's browser.
  // (@fastify/csrf is what @fastify/csrf-protection makes its tokens with.)
  const tokens = Tokens();
  const planted = tokens.secretSync();
  const forgedToken = tokens.create(planted);
  const page = await fetch(`${s.baseUrl}/console/sign-in`, {
    headers: { cookie: `crmp_console_pre=${planted}` },
  });
  const issued = page.headers.getSetCookie().find((c) => c.startsWith('crmp_console_pre='));
  assert.ok(issued, 'the server issues its own secret');
  assert.ok(!issued.startsWith(`crmp_console_pre=${planted};`));
  const forged = await fetch(`${s.baseUrl}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `crmp_console_pre=${planted}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: forgedToken, email: EMAIL, password: PASSWORD }).toString(),
  });
  assert.equal(forged.status, 403);
  assert.ok(!forged.headers.getSetCookie().some((c) => c.startsWith('crmp_console=')));
});

test('the setup form’s CSRF secret is signed like the sign-in form’s: a planted cookie is replaced', async (t) => {
  const s = await startStack(t);
  const tokens = Tokens();
  const planted = tokens.secretSync();
  const page = await fetch(`${s.baseUrl}/console/setup`, {
    headers: { cookie: `crmp_console_pre=${planted}` },
  });
  assert.equal(page.status, 200, 'no operator yet: the setup form');
  const issued = page.headers.getSetCookie().find((c) => c.startsWith('crmp_console_pre='));
  assert.ok(issued, 'the server issues its own secret');
  assert.ok(!issued.startsWith(`crmp_console_pre=${planted};`));
  const forged = await fetch(`${s.baseUrl}/console/setup`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `crmp_console_pre=${planted}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      _csrf: tokens.create(planted),
      setup_code: 'x',
      email: EMAIL,
      password: PASSWORD,
    }).toString(),
  });
  assert.equal(forged.status, 403);
  assert.ok(!forged.headers.getSetCookie().some((c) => c.startsWith('crmp_console=')));
});
