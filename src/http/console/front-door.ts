// The front door: `GET /` says what this service is and how to start (a page, or JSON for clients).
import { readFile } from 'node:fs/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { typed } from '../routes/types.ts';
import { codeWhere } from './first-run.ts';
import { html } from './html.ts';
import type { ConsoleKit } from './kit.ts';
import { CLI, layout } from './pages.ts';

/** A browser asks for HTML before JSON; curl (any type) and API clients get JSON. */
function wantsHtml(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? '');
  const htmlAt = accept.indexOf('text/html');
  if (htmlAt === -1) return false;
  const jsonAt = accept.indexOf('application/json');
  return jsonAt === -1 || htmlAt < jsonAt;
}

const FAVICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#17202b"/>' +
    '<path d="M9 11h14M9 16h14M9 21h9" stroke="#cfe0ff" stroke-width="3" stroke-linecap="round"/></svg>',
);

export function frontDoorRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  const { ctx } = kit;
  const api = typed(scope);
  api.get('/favicon.ico', {}, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=86400').type('image/svg+xml').send(FAVICON),
  );
  // The guide the console links when no CRM app is set; without the file, the page names it.
  api.get('/console/help/connecting-a-crm.md', {}, async (_request, reply) => {
    for (const where of [
      new URL('../../../docs/connecting-a-crm.md', import.meta.url),
      `${process.cwd()}/docs/connecting-a-crm.md`,
    ]) {
      const text = await readFile(where, 'utf8').catch(() => null);
      if (text !== null) return reply.type('text/plain; charset=utf-8').send(text);
    }
    return kit.send(
      reply,
      layout(
        { operator: null, csrf: '' },
        'Connecting a CRM',
        html`<div class="card"><h1>Connecting a CRM</h1><p>The guide is <code>docs/connecting-a-crm.md</code> in the crm-proxy repository: make an OAuth app in the CRM, register the redirect URL the console shows, set the app’s variables the Connections page names, and restart.</p></div>`,
      ),
      404,
    );
  });
  api.get('/', {}, async (request, reply) => {
    const noOperator = await ctx.setup.open();
    const links = { console: '/console', docs: '/docs', openapi: '/openapi.json', readyz: '/readyz' };
    if (!wantsHtml(request)) {
      return reply.type('application/json; charset=utf-8').send({
        name: 'crm-proxy',
        description:
          'One bearer token, JSON over HTTP, for reading and writing Salesforce and HubSpot records.',
        links,
        first_operator_needed: noOperator,
      });
    }
    const sandbox = ctx.config.sandbox;
    const start = noOperator
      ? html`<li><a href="/console/setup">Create the first operator</a> with the one-time setup code, which is ${codeWhere(sandbox)}. Or on the server: <code>${CLI} operators create --email you@example.com</code>.</li>`
      : html`<li><a href="/console/sign-in">Sign in to the console</a> (a new operator: <code>${CLI} operators create --email …</code>).</li>`;
    const page = layout(
      { operator: null, csrf: '' },
      'crm-proxy',
      html`<div class="card front" data-test="front-door"><h1>crm-proxy</h1>
<p>One bearer token, JSON over HTTP, for reading and writing the records of ${ctx.registry.list().map((a, i, all) => html`${i === 0 ? '' : i === all.length - 1 ? ' and ' : ', '}<strong>${a.profile.displayName}</strong>`)}. This service holds the CRM connections and their OAuth tokens; your scripts and backends call it with an API token.${sandbox ? html` It runs in <strong>sandbox mode</strong>: both CRMs are local emulators, already connected.` : ''}</p>
<h2>Start here</h2><ol class="steps">${start}
<li>In the console, <strong>Connect</strong> a CRM account (${sandbox ? 'the sandboxes need no account' : html`real accounts need the CRM app: <a href="/docs">API docs</a> and <code>docs/connecting-a-crm.md</code>`}).</li>
<li>On the connection’s page, <strong>Create token</strong>: it comes with a curl command and an SDK snippet that use it.</li></ol>
<h2>Links</h2><ul class="links">
<li><a href="/console" data-test="console-link">Console</a>: connections, API tokens, request log, connect links</li>
<li><a href="/docs">API docs</a> (try every operation) and the <a href="/openapi.json">OpenAPI document</a></li>
<li><a href="/readyz">/readyz</a>: readiness (the store answers)</li></ul></div>`,
    );
    return kit.send(reply, page);
  });
}
