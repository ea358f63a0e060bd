import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import type { AppContext } from './context.ts';
import { buildSerializer, buildValidator } from './http/compilers.ts';
import { connectionLimits } from './http/connections/index.ts';
import { consoleRoutes } from './http/console/routes.ts';
import { jsonParser } from './http/plugins/body-parser.ts';
import { docsPage } from './http/plugins/docs-page.ts';
import { draining } from './http/plugins/draining.ts';
import { errorHandling, handleFrameworkError } from './http/plugins/errors.ts';
import { health } from './http/plugins/health.ts';
import { OneLineLogController, redactingLogger } from './http/plugins/log-redaction.ts';
import { requestMetrics } from './http/plugins/metrics.ts';
import { openApi } from './http/plugins/openapi.ts';
import { genRequestId, requestId } from './http/plugins/request-id.ts';
import { requestLog } from './http/plugins/request-log.ts';
import { adminRoutes } from './http/routes/admin/index.ts';
import { v1Routes } from './http/routes/index.ts';
import type { ApiApp } from './http/routes/types.ts';
import { SHARED_SCHEMAS } from './http/schemas/answers.ts';

/**
 * Builds the Fastify app from a context; never listens. The JSON body limit (default 8 MiB) holds
 * the largest request, 10,000 records of ~800 bytes; the pass-through streams and is not bound by it.
 */
export function buildApp(ctx: AppContext): ApiApp {
  const connections = connectionLimits(ctx.config.limits, ctx.logger);
  const app = Fastify({
    // Header, whole-request and keep-alive deadlines, and the 408 written when one passes.
    ...connections.options,
    loggerInstance: redactingLogger(ctx.logger),
    logController: new OneLineLogController(),
    genReqId: genRequestId,
    bodyLimit: ctx.bodyLimit,
    // Keep-alive sockets are closed at shutdown once in-flight requests have finished.
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    // Undecodable URLs and over-long path segments answer in the API's error shape too.
    frameworkErrors: handleFrameworkError,
    ajv: {
      // Report every failing field, and never quietly drop or coerce what the client sent.
      customOptions: { allErrors: true, removeAdditional: false, coerceTypes: false, useDefaults: false },
    },
    schemaController: { compilersFactory: { buildValidator, buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  connections.attach(app);

  // One plugin per concern, registered in the order its hooks must run.
  app.register(requestId);
  if (ctx.metrics !== null) app.register(requestMetrics, { metrics: ctx.metrics });
  // Before any scope is made: a scope made earlier would not carry the request log's decorator.
  app.register(requestLog, { ctx });
  app.register(errorHandling, { bodyLimit: ctx.bodyLimit });
  app.register(jsonParser, { bodyLimit: ctx.bodyLimit });
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  app.register(openApi, {
    servers: Object.entries(ctx.config.publicUrls).map(([region, url]) => ({
      url,
      description: `Public URL of the ${region} region`,
    })),
    behindTls: ctx.config.behindTls,
    adapters: ctx.registry.list(),
  });
  app.register(docsPage, { behindTls: ctx.config.behindTls });
  const shutdown = { draining: false };
  app.register(health, { ctx, state: shutdown });
  // The API routes get only the services they use, never the whole context.
  app.register(v1Routes, {
    services: {
      auth: ctx.auth,
      rateLimiter: ctx.rateLimiter,
      operations: ctx.operations,
      jobs: ctx.jobs,
      jobReads: ctx.store.jobs,
      idempotency: ctx.idempotency,
      connectFlow: ctx.connect,
      bodyLimit: ctx.bodyLimit,
      behindTls: ctx.config.behindTls,
    },
  });
  app.register(adminRoutes, { operators: ctx.operators, admin: ctx.admin });
  app.register(consoleRoutes, { ctx });
  app.register(draining, { state: shutdown });
  return app;
}
