import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import type { RouteDoc } from '../route-doc.ts';

// The API reference at /docs: Swagger UI (swagger-ui-dist), served by the service itself from the
// installed package (no CDN, works offline), reading /openapi.json. "Try it out" sends requests from
// the browser to the first entry of `servers`, the instance that served the page, with the bearer
// token entered under "Authorize".

const DIST = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * Swagger UI's own script and stylesheets, its icons as data: URIs, and calls to this origin only
 * (the document and "try it"): no other host, no inline script or style.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// Narrow screens: Swagger UI's wide blocks (tables, code, the server picker) scroll inside
// themselves instead of widening the page.
const DOCS_CSS = `
html,body{margin:0;background:#fff}
.docs-header{font:15px/1.4 system-ui,sans-serif;padding:.75rem 1.25rem;border-bottom:1px solid #dde2e7;display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:baseline}
.docs-header strong{font-size:17px}.docs-header a{color:#1f5fa8}
.swagger-ui .wrapper{box-sizing:border-box;max-width:1460px;padding:0 1.25rem}
.swagger-ui .information-container .info{margin:1.25rem 0}
.swagger-ui .scheme-container{box-shadow:none;border-bottom:1px solid #dde2e7;padding:.75rem 0}
.swagger-ui .scheme-container .schemes{flex-wrap:wrap;gap:.5rem}
.swagger-ui .servers>label{margin-right:0;max-width:100%}.swagger-ui .servers select{max-width:100%}
.swagger-ui pre,.swagger-ui .highlight-code,.swagger-ui .microlight{max-width:100%;overflow-x:auto}
.swagger-ui table{display:block;max-width:100%;overflow-x:auto}
.swagger-ui .opblock .opblock-summary{flex-wrap:wrap}
.swagger-ui .opblock .opblock-summary-path{word-break:break-all}
.swagger-ui .model-box,.swagger-ui .model-container{max-width:100%;overflow-x:auto}
@media (max-width:600px){
 .swagger-ui .wrapper{padding:0 .5rem}
 .swagger-ui .opblock .opblock-summary-description{display:none}
 .swagger-ui .opblock-body .opblock-section-header{flex-wrap:wrap}
 .swagger-ui .responses-inner{padding:.5rem}
 .swagger-ui .parameters-col_description input,.swagger-ui .parameters-col_description select,.swagger-ui textarea{max-width:100%;box-sizing:border-box}
 .swagger-ui .dialog-ux .modal-ux{width:95%;min-width:0}
}
`;

const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    tryItOutEnabled: false,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>crm-proxy API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/assets/docs.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head><body>
<header class="docs-header"><strong>crm-proxy API reference</strong>
<span>Authorize with an API token <code>crmp_…</code>, then “Try it out”.</span>
<a href="/openapi.json">openapi.json</a></header>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body></html>
`;

interface Asset {
  type: string;
  load: () => Promise<Buffer | string>;
}

const ASSETS: Record<string, Asset> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', load: () => readFile(join(DIST, 'swagger-ui.css')) },
  'swagger-ui-bundle.js': {
    type: 'text/javascript; charset=utf-8',
    // Without the trailing source-map comment: the map is not served.
    load: async () =>
      (await readFile(join(DIST, 'swagger-ui-bundle.js'), 'utf8')).replace(
        /\n\/\/# sourceMappingURL=\S+\s*$/,
        '\n',
      ),
  },
  'favicon-32x32.png': { type: 'image/png', load: () => readFile(join(DIST, 'favicon-32x32.png')) },
  'docs.css': { type: 'text/css; charset=utf-8', load: async () => DOCS_CSS },
  'init.js': { type: 'text/javascript; charset=utf-8', load: async () => INIT_JS },
};

export function registerDocsPage(app: FastifyInstance): void {
  const hidden = { config: { doc: { hidden: true } as RouteDoc } };
  app.get('/docs', hidden, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', DOCS_CSP).send(PAGE),
  );
  const loaded = new Map<string, Promise<Buffer | string>>();
  app.get<{ Params: { file: string } }>('/docs/assets/:file', hidden, async (request, reply) => {
    const name = request.params.file;
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (asset === undefined) {
      throw new ApiError(
        'not_found',
        'There is no such file of the API reference. The reference is at /docs.',
      );
    }
    let body = loaded.get(name);
    if (body === undefined) {
      body = asset.load();
      loaded.set(name, body);
    }
    return reply
      .type(asset.type)
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(await body);
  });
}
