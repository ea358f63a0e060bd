import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import type { AppContext } from './context.ts';
import { connectionLimits } from './http/connections/index.ts';
import { registerConsole } from './http/console/routes.ts';
import { registerJsonParser } from './http/plugins/body-parser.ts';
import { registerDocsPage } from './http/plugins/docs-page.ts';
import { registerErrorHandling } from './http/plugins/errors.ts';
import { registerHealth } from './http/plugins/health.ts';
import { OneLineLogController, redactingLogger } from './http/plugins/log-redaction.ts';
import { registerRequestMetrics } from './http/plugins/metrics.ts';
import { registerOpenApi } from './http/plugins/openapi.ts';
import { genRequestId, registerRequestId } from './http/plugins/request-id.ts';
import { registerRequestLog } from './http/plugins/request-log.ts';
import { handleFrameworkError } from './http/plugins/router-errors.ts';
import { registerAdminRoutes } from './http/routes/admin/index.ts';
import { registerV1Routes } from './http/routes/index.ts';
import type { ApiApp, RouteServices } from './http/routes/types.ts';
import { SHARED_SCHEMAS } from './http/schemas/answers.ts';
import { buildValidator } from './http/validators.ts';
import { JobReads } from './jobs/reads.ts';

export interface BuildAppOptions {
  /** Base URLs shown in the OpenAPI document's `servers`. */
  servers?: string[];
}

/**
 * Builds the Fastify app from a context; never listens.
 *
 * Body limit (JSON routes; pass-through streams and is not parsed): the largest request is an
 * insert/update of 10,000 records, and a typical CRM record is a few hundred bytes of JSON, so the
 * default 8 MiB holds 10,000 records of ~800 bytes. Bigger loads go as several requests.
 */
export function buildApp(ctx: AppContext, options: BuildAppOptions = {}): ApiApp {
  let draining = false;
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
    schemaController: { compilersFactory: { buildValidator } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  connections.attach(app);

  registerRequestId(app);
  if (ctx.metrics !== null) registerRequestMetrics(app, ctx.metrics);
  registerErrorHandling(app, { bodyLimit: ctx.bodyLimit });
  registerJsonParser(app, ctx.bodyLimit);
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  registerOpenApi(app, {
    servers:
      options.servers?.map((url) => ({ url, description: 'Configured server' })) ??
      Object.entries(ctx.config.publicUrls).map(([region, url]) => ({
        url,
        description: `Public URL of the ${region} region`,
      })),
    behindTls: ctx.config.behindTls,
    providers: ctx.registry.list().map((adapter) => adapter.profile),
    offeredBy: (operation) =>
      ctx.registry
        .list()
        .filter((adapter) => adapter.handlers[operation] !== undefined)
        .map((adapter) => adapter.profile.displayName),
  });
  registerDocsPage(app, { behindTls: ctx.config.behindTls });
  registerHealth(app, {
    isReady: () => ctx.isReady(),
    draining: () => draining,
    details: () => ctx.readinessDetails(),
  });
  registerRequestLog(app, ctx);
  registerV1Routes(app, routeServices(ctx));
  registerAdminRoutes(app, ctx);
  registerConsole(app, ctx);
  app.addHook('preClose', async () => {
    draining = true;
  });
  // Requests still in flight at shutdown answer with `Connection: close`, so their keep-alive
  // sockets end with the answer instead of holding the close open until the keep-alive timeout.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });
  return app;
}

/** The services the API routes use, and only those: a route never holds the whole context. */
function routeServices(ctx: AppContext): RouteServices {
  return {
    auth: ctx.auth,
    rateLimiter: ctx.rateLimiter,
    operations: ctx.operations,
    jobs: ctx.jobs,
    jobReads: new JobReads(ctx.store.jobs),
    idempotency: ctx.idempotency,
    connectFlow: ctx.connect,
    bodyLimit: ctx.bodyLimit,
    behindTls: ctx.config.behindTls,
  };
}
