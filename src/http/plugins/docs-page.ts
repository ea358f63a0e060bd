import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../errors/index.ts';
import { withInstance } from './openapi.ts';

// The API reference at /docs: Swagger UI from the installed package; "try it" calls this instance.

/** Swagger UI's own files, icons as data: URIs, calls to this origin only; no inline script or style. */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// Narrow screens: Swagger UI's wide blocks scroll inside themselves instead of widening the page.
const DOCS_CSS = `
html,body{margin:0;background:#fff}
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

export const docsPage = fp(
  async (app: FastifyInstance, options: { behindTls: boolean }) => {
    app.register(async (scope) => {
      // Every answer here, 404s included: no sniffing, no framing, no Referer, and the CSP.
      scope.addHook('onSend', async (_request, reply) => {
        reply.header('x-content-type-options', 'nosniff');
        reply.header('referrer-policy', 'no-referrer');
        reply.header('x-frame-options', 'DENY');
        if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', DOCS_CSP);
      });
      await scope.register(fastifySwaggerUi, {
        routePrefix: '/docs',
        staticCSP: DOCS_CSP,
        theme: { title: 'crm-proxy API reference', css: [{ filename: 'docs.css', content: DOCS_CSS }] },
        uiConfig: {
          docExpansion: 'list',
          defaultModelsExpandDepth: 0,
          displayRequestDuration: true,
          tryItOutEnabled: false,
          layout: 'BaseLayout',
        },
        transformSpecification: (document, request) =>
          withInstance(document as Parameters<typeof withInstance>[0], request, options.behindTls),
      });
      // Any other path under /docs: the API's 404, answered in this scope so it has the headers.
      scope.all('/docs/*', async (request) => {
        throw new ApiError(
          'not_found',
          `There is no route ${request.method} ${request.url.split('?')[0]?.slice(0, 200)}. The API reference is at /docs.`,
        );
      });
    });
  },
  { name: 'docs-page', dependencies: ['openapi'] },
);
