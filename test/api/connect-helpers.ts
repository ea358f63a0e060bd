// Drives the connect flow the way a browser does, with plain fetch: the consent pages of the sandbox
// CRMs stand in for Salesforce's and HubSpot's. The service's public URL in tests is
// https://eu.crm-proxy.test, so URLs it hands out are re-aimed at the local listener.
import assert from 'node:assert/strict';
import type { Stack } from '../helpers/stack.ts';

export interface FlowStart {
  /** The CRM consent page. */
  authorizeUrl: string;
  /** `name=value` of the binding cookie, as a browser would send it back. */
  cookie: string;
}

/** The same path and query on the local service (public URLs point at https://eu.crm-proxy.test). */
export function local(stack: Stack, url: string): string {
  const u = new URL(url);
  return `${stack.baseUrl}${u.pathname}${u.search}`;
}

/** `name=value` of a Set-Cookie header. */
export function cookiePair(setCookie: string): string {
  return setCookie.split(';')[0] ?? '';
}

/**
 * Opens a connect link as its owner does: our landing page first, then its Continue link, which
 * must send the browser to the consent page with a binding cookie (and the cookie that leads back).
 */
export async function openLink(stack: Stack, linkUrl: string): Promise<FlowStart> {
  const landing = await fetch(local(stack, linkUrl), { redirect: 'manual' });
  const html = await landing.text();
  assert.equal(landing.status, 200, `link answered ${landing.status}`);
  assert.equal(landing.headers.get('x-connect-outcome'), 'link_landing');
  const next = /<a class="primary" href="([^"]+)">Continue to /.exec(html)?.[1] ?? '';
  assert.match(next, /^\/connect\/[A-Za-z0-9_-]+\?continue=1$/);
  const response = await fetch(`${stack.baseUrl}${next.replace(/&amp;/g, '&')}`, { redirect: 'manual' });
  await response.text();
  assert.equal(response.status, 303, `continue answered ${response.status}`);
  const setCookie = response.headers.getSetCookie();
  const binding = setCookie.find((c) => c.startsWith('crmp_oauth_')) ?? '';
  const back = setCookie.find((c) => c.startsWith('crmp_connect_back=')) ?? '';
  assert.ok(binding !== '' && back !== '', setCookie.join(' | '));
  return {
    authorizeUrl: response.headers.get('location') ?? '',
    cookie: `${cookiePair(binding)}; ${cookiePair(back)}`,
  };
}

/** Starts a flow the way the console does (the service function), with the cookie it would set. */
export async function beginFlow(
  stack: Stack,
  input: Parameters<Stack['ctx']['connect']['begin']>[0],
): Promise<FlowStart> {
  const started = await stack.ctx.connect.begin(input);
  return {
    authorizeUrl: started.authorizeUrl,
    cookie: cookiePair(stack.ctx.connect.bindingCookie(started.binding, false)),
  };
}

/** Hidden inputs of the consent page's form. */
function hiddenFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    out[decodeEntities(m[1] ?? '')] = decodeEntities(m[2] ?? '');
  }
  return out;
}

function decodeEntities(s: string): string {
  return s
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * Loads the consent page and clicks Allow (or Deny); returns where the CRM sends the browser back
 * (the service's callback URL, with `code` or `error`, and `state`).
 */
export async function consent(authorizeUrl: string, choice: 'allow' | 'deny'): Promise<URL> {
  const pageResponse = await fetch(authorizeUrl);
  const html = await pageResponse.text();
  assert.equal(pageResponse.status, 200, html.slice(0, 300));
  const fields = hiddenFields(html);
  const form = new URLSearchParams(fields);
  // The Salesforce sandbox's buttons are `action=allow|deny`, HubSpot's `decision=allow|deny`.
  if (html.includes('name="decision"')) form.set('decision', choice);
  else form.set('action', choice);
  const u = new URL(authorizeUrl);
  const post = await fetch(`${u.origin}${u.pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  await post.text();
  assert.equal(post.status, 302);
  return new URL(post.headers.get('location') ?? '');
}

export interface CallbackAnswer {
  status: number;
  headers: Headers;
  html: string;
  /** The page's outcome (`connected`, `state_replayed`, …) from `X-Connect-Outcome`. */
  outcome: string | null;
  location: string | null;
}

/** Follows the CRM's redirect to the service's callback, sending the cookie when given. */
export async function callback(stack: Stack, url: URL | string, cookie?: string): Promise<CallbackAnswer> {
  const response = await fetch(local(stack, url.toString()), {
    redirect: 'manual',
    headers: cookie === undefined ? {} : { cookie },
  });
  const html = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    html,
    outcome: response.headers.get('x-connect-outcome'),
    location: response.headers.get('location'),
  };
}

/** The whole flow: consent with Allow, back to the callback with the cookie. */
export async function runFlow(stack: Stack, start: FlowStart): Promise<CallbackAnswer> {
  const back = await consent(start.authorizeUrl, 'allow');
  return callback(stack, back, start.cookie);
}

/** The connection a connected page ended with (a header: the page itself shows no internal id). */
export function connectedId(answer: CallbackAnswer): string {
  const id = answer.headers.get('x-connect-connection') ?? '';
  assert.match(id, /^conn_[0-9A-Za-z]{20}$/, `no connection id header: ${answer.html.slice(0, 400)}`);
  assert.doesNotMatch(answer.html, /conn_[0-9A-Za-z]{20}/, 'the page shows no connection id');
  return id;
}
