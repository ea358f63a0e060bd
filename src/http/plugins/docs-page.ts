import type { FastifyInstance } from 'fastify';
import type { RouteDoc } from '../route-doc.ts';

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Markdown-ish inline code (`x`) to <code>, after escaping. */
const inline = (s: string) => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ name: string; schema?: { description?: string } }>;
  requestBody?: { content: { 'application/json': { schema: unknown } } };
  responses?: Record<string, { description: string }>;
}

/** Renders the OpenAPI document as one self-contained HTML page (no scripts, no CDN: works offline). */
function renderDocs(doc: {
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, Operation>>;
}): string {
  const sections: string[] = [];
  const toc: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const id = esc(op.operationId ?? `${method}-${path}`);
      toc.push(
        `<li><a href="#${id}"><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> ${esc(path)}</a></li>`,
      );
      const params = (op.parameters ?? [])
        .map((p) => `<li><code>${esc(p.name)}</code> ${inline(p.schema?.description ?? '')}</li>`)
        .join('');
      const body = op.requestBody?.content['application/json'].schema;
      const responses = Object.entries(op.responses ?? {})
        .map(([status, r]) => `<tr><td>${esc(status)}</td><td>${inline(r.description)}</td></tr>`)
        .join('');
      sections.push(`<section id="${id}">
<h2><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h2>
<p><strong>${inline(op.summary ?? '')}</strong></p><p>${inline(op.description ?? '')}</p>
${params === '' ? '' : `<h3>Path parameters</h3><ul>${params}</ul>`}
${body === undefined ? '' : `<h3>Request body (JSON Schema)</h3><pre>${esc(JSON.stringify(body, null, 2))}</pre>`}
<h3>Responses</h3><table>${responses}</table>
</section>`);
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} ${esc(doc.info.version)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;display:flex;color:#1d232a}
nav{width:330px;min-width:330px;height:100vh;overflow:auto;position:sticky;top:0;background:#f4f6f8;padding:1rem;box-sizing:border-box}
nav ul{list-style:none;padding:0;margin:0}nav li{margin:.2rem 0}nav a{color:inherit;text-decoration:none;font-size:13px}
main{padding:1rem 2rem;max-width:960px}section{border-top:1px solid #dde2e7;padding:.5rem 0 1rem}
pre{background:#f4f6f8;padding:.75rem;overflow:auto;font-size:12px;max-height:420px}
code{background:#f4f6f8;padding:0 .2rem}table{border-collapse:collapse}td{border:1px solid #dde2e7;padding:.25rem .5rem;vertical-align:top}
.m{display:inline-block;min-width:3.6rem;font-weight:600;font-size:12px;text-align:center;border-radius:3px;color:#fff;background:#607080}
.m.post{background:#2f7d32}.m.get{background:#1f5fa8}.m.delete{background:#b03a2e}.m.put,.m.patch{background:#9a6b00}
</style></head><body>
<nav><strong>${esc(doc.info.title)}</strong><br><small>version ${esc(doc.info.version)} · <a href="/openapi.json">openapi.json</a></small><ul>${toc.join('')}</ul></nav>
<main><h1>${esc(doc.info.title)}</h1><p>${inline(doc.info.description)}</p>
<p>Every request carries <code>Authorization: Bearer crmp_…</code> and, with a body, <code>Content-Type: application/json</code>.</p>
${sections.join('\n')}</main></body></html>`;
}

export function registerDocsPage(app: FastifyInstance, document: () => object): void {
  let html: string | undefined;
  app.get('/docs', { config: { doc: { hidden: true } as RouteDoc } }, async (_request, reply) => {
    html ??= renderDocs(document() as Parameters<typeof renderDocs>[0]);
    return reply.type('text/html; charset=utf-8').send(html);
  });
}
