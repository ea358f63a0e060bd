// The console's pages. Every value goes through `html`, which escapes it.
import type {
  ConnectionView,
  Operator,
  RequestLogEntry,
  TokenView,
  UsageSeries,
} from '../../admin/service.ts';
import type { ConnectLinkView, ConnectPort } from '../../domain/connect.ts';
import { usageChart } from './chart.ts';
import { type Html, html } from './html.ts';

export interface PageFrame {
  operator: Operator | null;
  csrf: string;
  current?: string;
  /** The signed-in session (its id hash), marked "this browser" in session lists. */
  sessionId?: string;
}

const NAV: Array<[string, string]> = [
  ['/console/connections', 'Connections'],
  ['/console/tokens', 'API tokens'],
  ['/console/requests', 'Request log'],
  ['/console/usage', 'Usage'],
  ['/console/links', 'Connect links'],
];

/** The command line as the README runs it. */
export const CLI = './bin/crm-proxy.mjs';

export const when = (iso: string | null | undefined): string =>
  iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—';

export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

export function notices(error?: string | null, done?: Html | string | null): Html {
  return html`${error != null && html`<p class="error" role="alert">${error}</p>`}${done != null && html`<p class="notice" role="status">${done}</p>`}`;
}

export function layout(frame: PageFrame, title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · crm-proxy console</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml"><link rel="stylesheet" href="/console/assets/console.css"><script src="/console/assets/console.js" defer></script></head>
<body><header class="top"><span class="brand">crm-proxy</span>${
    frame.operator === null
      ? ''
      : html`<nav>${[
          ...NAV,
          ...(frame.operator.canManage ? [['/console/operators', 'Operators'] as [string, string]] : []),
          ['/console/account', 'Account'] as [string, string],
        ].map(
          ([href, label]) =>
            html`<a href="${href}"${frame.current === href ? html` aria-current="page"` : ''}>${label}</a>`,
        )}</nav>
<span class="who">${frame.operator.email}</span><form method="post" action="/console/sign-out">${csrfField(frame.csrf)}<button class="secondary" type="submit">Sign out</button></form>`
  }</header><main>${body}</main></body></html>`;
}

export function messagePage(
  frame: PageFrame,
  title: string,
  text: string,
  back = '/console/connections',
): Html {
  return layout(
    frame,
    title,
    html`<div class="card"><h1>${title}</h1><p>${text}</p><p><a href="${back}">Back</a></p></div>`,
  );
}

const statusBadge = (c: ConnectionView): Html =>
  html`<span class="badge ${c.status}">${c.status === 'needs_reauth' ? 'needs re-auth' : c.status}</span>`;

function allowance(c: ConnectionView): Html {
  if (c.allowance === null) return html`<span class="muted">—</span>`;
  const pct = Math.min(100, Math.round((c.allowance.used / c.allowance.limit) * 100));
  return html`<meter min="0" max="${c.allowance.limit}" value="${c.allowance.used}" title="${pct}% used"></meter>
<span class="mono">${c.allowance.used.toLocaleString('en')} used / ${c.allowance.left.toLocaleString('en')} left</span>`;
}

type ProviderChoice = ReturnType<ConnectPort['providers']>[number];

/** The CRMs as options: the first ready one selected, the others disabled. */
function providerOptions(providers: ProviderChoice[]): Html {
  const first = providers.find((p) => p.ready)?.provider;
  return html`${providers.map(
    (p) =>
      html`<option value="${p.provider}"${p.ready ? '' : html` disabled`}${p.provider === first ? html` selected` : ''}>${p.displayName}${p.ready ? '' : ` (set ${p.missing.join(', ')})`}</option>`,
  )}`;
}

/** What each CRM still needs before it can be connected in a browser. */
function appsMissing(providers: ProviderChoice[]): Html {
  const lacking = providers.filter((p) => !p.ready);
  if (lacking.length === 0) return html``;
  const none = lacking.length === providers.length;
  return html`<div class="${none ? 'error' : 'muted'}" role="${none ? 'alert' : 'note'}" data-test="connect-needs">${
    none ? html`<strong>Connect is off: no CRM app is configured.</strong> ` : ''
  }${lacking.map(
    (p) =>
      html`To connect ${p.displayName} accounts, set ${p.missing.map((v, i) => html`${i === 0 ? '' : ' and '}<code>${v}</code>`)}. `,
  )}Then restart the service. How to make the CRM app and which redirect URL to register: <a href="/console/help/connecting-a-crm.md">docs/connecting-a-crm.md</a>.</div>`;
}

/** Which CRM, a label and a login host: the connect form, or with `link` the connect link form. */
function providerForm(frame: PageFrame, providers: ProviderChoice[], link: boolean): Html {
  const off = providers.every((p) => !p.ready) ? html` disabled` : '';
  const [action, example, test, button] = link
    ? ['/console/links', 'Globex', 'create-link', 'Create link']
    : ['/console/connections/connect', 'Acme production', 'connect', 'Connect'];
  return html`${appsMissing(providers)}<form class="row" method="post" action="${action}">${csrfField(frame.csrf)}
<label>CRM <select name="provider"${off}>${providerOptions(providers)}</select></label>
<label>Label <input name="label" maxlength="100" placeholder="${example}"></label>
<label>Login host (if the CRM has several) <input name="login_host" maxlength="200" placeholder="default"></label>
${link ? html`<label>Valid for hours <input name="ttl_hours" inputmode="numeric" pattern="[0-9]*" placeholder="24"></label>\n` : ''}<button type="submit" data-test="${test}"${off}>${button}</button></form>`;
}

const sameAccountBadge = (id: string, name: string) =>
  html`<span class="badge needs_reauth" data-same-account="${id}">same account as <a href="/console/connections/${id}">${name}</a></span>`;

type Names = Map<string, string>;

const connectionNames = (connections: ConnectionView[]): Names =>
  new Map(connections.map((c) => [c.id, c.label ?? c.id]));

export function connectionsPage(
  frame: PageFrame,
  connections: ConnectionView[],
  providers: ProviderChoice[],
  redirectUrl: string,
  notice: Html | null,
  twins: Map<string, string> = new Map(),
): Html {
  const names = connectionNames(connections);
  const twinNote = (id?: string) =>
    id === undefined ? '' : html`<br>${sameAccountBadge(id, names.get(id) ?? id)}`;
  const rows = connections.map(
    (c) => html`<tr data-connection="${c.id}">
<td data-label="Connection"><a href="/console/connections/${c.id}">${c.label ?? c.id}</a><br><span class="muted mono id">${c.id}</span>${twinNote(twins.get(c.id))}</td>
<td data-label="CRM">${c.providerName}${c.sandbox ? html` <span class="muted">(sandbox)</span>` : ''}</td><td data-label="Region">${c.region}</td>
<td data-label="Status" class="status">${statusBadge(c)}${c.lastError === null ? '' : html`<span class="muted last-error">${c.lastError}</span>`}</td>
<td data-label="Created">${when(c.createdAt)}</td><td data-label="Last used">${when(c.lastUsedAt)}</td><td data-label="Daily API allowance">${allowance(c)}</td>
<td data-label="" class="actions">${connectionActions(frame, c)}</td></tr>`,
  );
  return layout(
    frame,
    'Connections',
    html`<h1>Connections</h1>${notices(null, notice)}
<div class="table-wrap"><table><thead><tr><th>Connection</th><th>CRM</th><th>Region</th><th>Status</th><th>Created</th><th>Last used</th><th>Daily API allowance</th><th></th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="8" class="muted">No connections yet.</td></tr>` : rows}</tbody></table></div>
<h2>Connect an account</h2><div class="card">${providerForm(frame, providers, false)}
<p class="muted">Redirect URL to register in the ${providers.map((p) => p.displayName).join(' and ')} app settings: <code>${redirectUrl}</code></p></div>`,
  );
}

function tokenTable(frame: PageFrame, tokens: TokenView[], names: Names): Html {
  const rows = tokens.map(
    (t) => html`<tr data-token="${t.id}"><td data-label="Token" class="mono">${tokenName(t)}</td>
<td data-label="Connection"><a href="/console/connections/${t.connectionId}">${names.get(t.connectionId) ?? t.connectionId}</a></td>
<td data-label="State"><span class="badge ${t.state}">${t.state}</span></td><td data-label="Created">${when(t.createdAt)}</td><td data-label="Last used">${when(t.lastUsedAt)}</td><td data-label="Expires">${t.expiresAt === null ? 'never' : when(t.expiresAt)}</td>
<td data-label="">${
      t.state === 'active'
        ? html`<form class="inline" method="post" action="/console/tokens/${t.id}/revoke" data-confirm="Revoke this token? Clients using it stop working at once.">${csrfField(frame.csrf)}<button class="danger" type="submit">Revoke</button></form>`
        : ''
    }</td></tr>`,
  );
  return html`<div class="table-wrap"><table><thead><tr><th>Token</th><th>Connection</th><th>State</th><th>Created</th><th>Last used</th><th>Expires</th><th></th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="7" class="muted">No API tokens.</td></tr>` : rows}</tbody></table></div>`;
}

/** The token form; on the tokens page it names the connection. */
function tokenForm(frame: PageFrame, action: string, connections?: ConnectionView[]): Html {
  return html`<form class="row" method="post" action="${action}">${csrfField(frame.csrf)}
${connections === undefined ? '' : html`<label>Connection <select name="connection_id" required>${connections.map((c) => html`<option value="${c.id}">${c.label ?? c.id} (${c.providerName})</option>`)}</select></label>\n`}<label>Label <input name="name" maxlength="100" placeholder="nightly sync"></label>
<label>Expires in days <input name="expires_in_days" inputmode="numeric" pattern="[0-9]*" placeholder="never"></label>
<button type="submit" data-test="create-token">Create token</button></form>`;
}

/** A new token, shown once, with a curl command and an SDK snippet that use it. */
export interface CreatedToken {
  token: string;
  prefix: string;
  connection: string;
  baseUrl: string;
}

function createdTokenBlock(created: CreatedToken): Html {
  const curl = `curl -s -X POST "${created.baseUrl}/v1/describe" -H "Authorization: Bearer ${created.token}"`;
  const sdk = `// npm install --install-links /path/to/crm-proxy/packages/client
const { createCrmProxyClient } = require('@crm-proxy/client');

const crm = createCrmProxyClient({ baseUrl: '${created.baseUrl}', token: '${created.token}' });
crm.describe().then((objects) => console.log(objects));`;
  return html`<div class="card" data-test="new-token"><h2>New API token ${created.prefix}… for ${created.connection}</h2>
<p>Copy it now: it is shown only this once. It belongs to <strong>${created.connection}</strong>: every call made with it goes to that connection’s CRM account.</p>
<div class="secret"><code id="new-token">${created.token}</code><button type="button" class="secondary" data-copy="new-token">Copy</button></div>
<h3>Try it with curl</h3>
<div class="secret"><pre><code id="new-token-curl" data-test="token-curl">${curl}</code></pre><button type="button" class="secondary" data-copy="new-token-curl">Copy</button></div>
<h3>Or with the SDK (<code>@crm-proxy/client</code>, CommonJS or ES modules)</h3>
<div class="secret"><pre><code id="new-token-sdk" data-test="token-sdk">${sdk}</code></pre><button type="button" class="secondary" data-copy="new-token-sdk">Copy</button></div>
<p class="muted">Keep the token out of source files you share: read it from an environment variable instead. In an ES module project, <code>import { createCrmProxyClient } from '@crm-proxy/client'</code> works the same.</p></div>`;
}

export function tokensPage(
  frame: PageFrame,
  tokens: TokenView[],
  connections: ConnectionView[],
  created: CreatedToken | null,
  error: string | null,
): Html {
  return layout(
    frame,
    'API tokens',
    html`<h1>API tokens</h1>${created === null ? '' : createdTokenBlock(created)}
${notices(error)}
<div class="card">${connections.length === 0 ? html`<p class="muted">Connect an account first.</p>` : tokenForm(frame, '/console/tokens', connections)}</div>
${tokenTable(frame, tokens, connectionNames(connections))}`,
  );
}

const tokenName = (t: TokenView): string => `${t.prefix}…${t.name ? ` ${t.name}` : ''}`;

const tokenNames = (tokens: TokenView[]): Names => new Map(tokens.map((t) => [t.id, tokenName(t)]));

function requestTable(entries: RequestLogEntry[], names: Names, tokens: Names): Html {
  const rows = entries.map((e) => {
    const took = [`${e.latencyMs} ms`, `${e.crmCalls} CRM call${e.crmCalls === 1 ? '' : 's'}`, e.interface];
    return html`<tr data-request-id="${e.requestId}"><td data-label="Time">${e.at.slice(0, 19).replace('T', ' ')}</td><td data-label="Request" class="wrap mono">${e.method} ${e.path}</td>
<td data-label="Status"><span class="badge s${Math.floor(e.status / 100)}">${e.status}</span>${e.errorCode === null ? '' : html` <span class="muted">${e.errorCode}</span>`}</td>
<td data-label="Took">${took.filter((x) => x !== null).join(' · ')}</td><td data-label="Request id" class="mono id">${e.requestId}</td>
<td data-label="Token">${e.actor != null ? html`<span class="mono" data-actor="${e.actor}">by ${e.actor}</span>` : e.tokenId === null ? '—' : html`<a class="mono" href="/console/requests?token_id=${e.tokenId}">${tokens.get(e.tokenId) ?? `${e.tokenId} (revoked or removed)`}</a>`}</td>
<td data-label="Connection">${e.connectionId === null ? '—' : html`<a href="/console/requests?connection_id=${e.connectionId}">${names.get(e.connectionId) ?? e.connectionId}</a>`}</td></tr>`;
  });
  return html`<div class="table-wrap"><table data-test="request-log" class="requests"><thead><tr><th>Time</th><th>Request</th><th>Status</th><th>Took</th><th>Request id</th><th>Token</th><th>Connection</th></tr></thead><tbody>${
    rows.length === 0 ? html`<tr><td colspan="7" class="muted">No requests.</td></tr>` : rows
  }</tbody></table></div>`;
}

/** The request log's filter, by its query parameters; '' is "any". */
type RequestFilter = Record<'status' | 'connection_id' | 'token_id' | 'request_id', string>;

export const REQUEST_PAGE = 50;

export function requestsPage(
  frame: PageFrame,
  entries: RequestLogEntry[],
  filter: RequestFilter,
  connections: ConnectionView[],
  retentionDays: number,
  tokens: TokenView[] = [],
): Html {
  const tokenLabels = tokenNames(tokens);
  return layout(
    frame,
    'Request log',
    html`<h1>Request log</h1>
<form class="row card" method="get" action="/console/requests">
<label>Status <select name="status">${['', '2xx', '3xx', '4xx', '5xx'].map((s) => html`<option value="${s}"${s === filter.status ? html` selected` : ''}>${s === '' ? 'any' : s}</option>`)}</select></label>
<label>Connection <select name="connection_id"><option value="">any</option>${connections.map((c) => html`<option value="${c.id}"${c.id === filter.connection_id ? html` selected` : ''}>${c.label ?? c.id}</option>`)}</select></label>
<label>Request id <input name="request_id" value="${filter.request_id}" maxlength="128" placeholder="req_…"></label>
${filter.token_id === '' ? '' : html`<input type="hidden" name="token_id" value="${filter.token_id}">`}
<button type="submit">Filter</button> <a href="/console/requests">Clear</a></form>
${filter.token_id === '' ? '' : html`<p class="muted">Token ${tokenLabels.get(filter.token_id) ?? filter.token_id} only.</p>`}
${requestTable(entries, connectionNames(connections), tokenLabels)}
${
  entries.length === REQUEST_PAGE
    ? html`<p><a data-test="older" href="/console/requests?${new URLSearchParams({
        ...Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== '')),
        before: entries[entries.length - 1]?.at ?? '',
      }).toString()}">Older requests →</a></p>`
    : ''
}
<p class="muted">Newest first, ${REQUEST_PAGE} a page. Bodies are never stored; entries are kept ${retentionDays} days.</p>`,
  );
}

export function usagePage(
  frame: PageFrame,
  series: Array<{ connection: ConnectionView; usage: UsageSeries }>,
): Html {
  return layout(
    frame,
    'Usage',
    html`<h1>Usage, last 7 days</h1>${
      series.length === 0
        ? html`<p class="muted">No connections.</p>`
        : series.map(({ connection, usage }) =>
            usageChart(usage, `${connection.label ?? connection.id} (${connection.providerName})`),
          )
    }`,
  );
}

function connectionActions(frame: PageFrame, c: ConnectionView): Html {
  return html`<form class="inline" method="post" action="/console/connections/${c.id}/reconnect">${csrfField(frame.csrf)}<button class="secondary" type="submit" data-test="reconnect">Reconnect</button></form> <form class="inline" method="post" action="/console/connections/${c.id}/remove" data-confirm="Remove this connection and all its API tokens?">${csrfField(frame.csrf)}<button class="danger" type="submit" data-test="remove">Remove</button></form>`;
}

export function connectionPage(
  frame: PageFrame,
  c: ConnectionView,
  tokens: TokenView[],
  entries: RequestLogEntry[],
  usage: UsageSeries,
  created: CreatedToken | null,
  extra: { twin: { id: string; name: string } | null; error?: string | null },
): Html {
  const names = connectionNames([c]);
  const name = c.label ?? c.id;
  return layout(
    frame,
    name,
    html`<h1>${name}</h1>${created === null ? '' : createdTokenBlock(created)}
${notices(extra.error)}
<div class="card"><dl class="facts"><dt>Id</dt><dd class="mono id">${c.id}</dd><dt>CRM</dt><dd>${c.providerName}</dd><dt>Region</dt><dd>${c.region}</dd>
<dt>Status</dt><dd>${statusBadge(c)} ${c.lastError ?? ''}</dd>${
      extra.twin === null
        ? ''
        : html`<dt>Same account as</dt><dd>${sameAccountBadge(extra.twin.id, extra.twin.name)} <span class="muted">Both reach the same CRM account: remove one unless both are wanted.</span></dd>`
    }<dt>Created</dt><dd>${when(c.createdAt)}</dd><dt>Last used</dt><dd>${when(c.lastUsedAt)}</dd>
<dt>Daily API allowance</dt><dd>${allowance(c)}</dd></dl>
<p class="actions">${connectionActions(frame, c)}</p></div>
${usageChart(usage, 'Requests per hour')}
<h2>API tokens</h2><div class="card"><p>Tokens made here belong to <strong>${name}</strong> (${c.providerName}).</p>
${tokenForm(frame, `/console/connections/${c.id}/tokens`)}</div>${tokenTable(frame, tokens, names)}
<h2>Recent requests</h2>${requestTable(entries, names, tokenNames(tokens))}`,
  );
}

export function linksPage(
  frame: PageFrame,
  links: ConnectLinkView[],
  providers: ProviderChoice[],
  created: { url: string; expiresAt: string } | null,
): Html {
  const state = (l: ConnectLinkView) => (l.status === 'active' ? 'open' : l.status);
  return layout(
    frame,
    'Connect links',
    html`<h1>Connect links</h1><p class="muted">A one-time link for the owner of a CRM account: they open it, approve on the CRM’s consent page, and the connection appears here.</p>
${
  created === null
    ? ''
    : html`<div class="card" data-test="new-link"><h2>New connect link</h2><p>Send it to the account owner. It works once and expires ${when(created.expiresAt)}.</p>
<div class="secret"><code id="new-link">${created.url}</code><button type="button" class="secondary" data-copy="new-link">Copy</button></div></div>`
}
<div class="card">${providerForm(frame, providers, true)}</div>
<div class="table-wrap"><table><thead><tr><th>Link</th><th>CRM</th><th>Label</th><th>State</th><th>Created</th><th>Expires</th><th>Connection</th><th></th></tr></thead><tbody>${
      links.length === 0
        ? html`<tr><td colspan="8" class="muted">No connect links.</td></tr>`
        : links.map(
            (
              l,
            ) => html`<tr data-link="${l.id}"><td data-label="Link" class="mono">${l.id}</td><td data-label="CRM">${l.provider}</td><td data-label="Label">${l.label ?? ''}</td><td data-label="State">${state(l)}</td><td data-label="Created">${when(l.createdAt)}</td><td data-label="Expires">${when(l.expiresAt)}</td>
<td data-label="Connection">${l.connectionId === null ? '—' : html`<a href="/console/connections/${l.connectionId}">${l.connectionId}</a>`}</td>
<td data-label="">${state(l) === 'open' ? html`<form class="inline" method="post" action="/console/links/${l.id}/revoke">${csrfField(frame.csrf)}<button class="danger" type="submit">Revoke</button></form>` : ''}</td></tr>`,
          )
    }</tbody></table></div>`,
  );
}
