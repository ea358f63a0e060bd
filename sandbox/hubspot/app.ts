import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONTROL_PREFIX, createSandboxApp, type FaultKind, type SandboxCore } from '../shared/index.ts';
import { persistState, storesOf } from '../shared/persist.ts';
import { registerAccountInfoRoutes } from './account-info/index.ts';
import { registerAssociationsRoutes } from './associations/index.ts';
import {
  type AuthResult,
  type HubSpotContext,
  type HubSpotSandboxOptions,
  resolveCredentials,
} from './context.ts';
import {
  expiredBody,
  hubspotError,
  internalErrorBody,
  rateLimitBody,
  sendHubSpotError,
  unauthorizedBody,
  validationBody,
} from './errors.ts';
import { Portal } from './model/portal.ts';
import { createHubSpotAuth, registerOAuthRoutes } from './oauth/index.ts';
import { registerObjectsRoutes } from './objects/index.ts';
import { registerOwnersRoutes } from './owners/index.ts';
import { registerPipelinesRoutes } from './pipelines/index.ts';
import { registerPropertiesRoutes } from './properties/index.ts';
import { registerRateLimits, resetRateLimits } from './ratelimit/index.ts';
import { registerSchemasRoutes } from './schemas/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's token check, set on `/crm…` calls that passed it. */
    auth?: Extract<AuthResult, { ok: true }>;
  }
}

export interface HubSpotApp {
  app: FastifyInstance;
  ctx: HubSpotContext;
  core: SandboxCore;
  /** Called once listening, so `paging.next.link` carries the real host and port. */
  setBaseUrl(url: string): void;
}

/** Paths the bearer check guards: every CRM API (`/crm/v3/**`, `/crm-object-schemas/**`, …) and account activity. */
const guarded = (url: string): boolean =>
  url.startsWith('/crm/') || url.startsWith('/crm-') || url.startsWith('/account-info/');

const bearer = (request: FastifyRequest): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];

/**
 * Injected faults in HubSpot's wire format. `lock` answers 423 Locked, which HubSpot documents for
 * heavy concurrent writes to the same records (the SDK does not retry it; clients should wait ≥ 2 s).
 * `rateLimit` on a search call answers the search endpoints' per-second body, elsewhere the
 * 10-second one (both make @hubspot/api-client retry).
 */
function renderFault(fault: FaultKind, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  switch (fault) {
    case 'error500':
      return sendHubSpotError(reply, 500, internalErrorBody());
    case 'error503':
      return sendHubSpotError(
        reply,
        503,
        hubspotError({
          message: 'Service Unavailable. Please try again later.',
          category: 'SERVICE_UNAVAILABLE',
        }),
      );
    case 'lock':
      return sendHubSpotError(
        reply,
        423,
        hubspotError({
          message: 'The records are locked by concurrent requests. Please wait and try again.',
          category: 'LOCKED',
        }),
      );
    case 'rateLimit':
      return sendHubSpotError(
        reply,
        429,
        rateLimitBody(request.callKind === 'objects.search' ? 'secondly' : 'ten_secondly'),
      );
    default:
      return sendHubSpotError(reply, 401, expiredBody(new Date(Date.now() - 1000)));
  }
}

/** File name of the persisted portal and OAuth grants in the data directory (`persistDir`). */
export const STATE_FILE = 'hubspot-sandbox.state';

/** Builds the HubSpot sandbox app (routes, hooks, control API) without listening. */
export function buildHubSpotApp(options: HubSpotSandboxOptions = {}): HubSpotApp {
  const core = createSandboxApp({
    name: 'hubspot',
    renderFault,
    ...(options.realism !== undefined ? { realism: options.realism } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  const { app, realism, accounting } = core;
  let baseUrl = 'http://127.0.0.1';
  const clock = options.clock;
  const oauth = createHubSpotAuth(options, clock);
  const ctx: HubSpotContext = {
    portal: new Portal({
      ...(options.portalId !== undefined ? { portalId: options.portalId } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(clock !== undefined ? { now: () => new Date(clock()) } : {}),
    }),
    oauth,
    realism,
    accounting,
    options,
    credentials: resolveCredentials(options),
    baseUrl: () => baseUrl,
  };

  app.decorateRequest('auth', undefined);
  app.addHook('onRequest', async (request, reply) => {
    if (!guarded(request.url)) return;
    const result = ctx.oauth.verify(bearer(request));
    if (result.ok) {
      request.auth = result;
      return;
    }
    return sendHubSpotError(
      reply,
      401,
      result.reason === 'expired' ? expiredBody(result.expiredAt) : unauthorizedBody(),
    );
  });
  // HubSpot answers `application/json;charset=utf-8` (no space) with a correlation id on every call.
  app.addHook('onSend', async (_request, reply, payload) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('application/json')) {
      reply.header('content-type', 'application/json;charset=utf-8');
    }
    if (!reply.hasHeader('x-hubspot-correlation-id'))
      reply.header('x-hubspot-correlation-id', crypto.randomUUID());
    return payload;
  });
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) return sendHubSpotError(reply, 500, internalErrorBody());
    // Body parse failures and the like, phrased the way HubSpot's JSON layer does.
    return sendHubSpotError(
      reply,
      status,
      validationBody(`Invalid input JSON on line 1, column 1: ${error.message}`),
    );
  });
  app.setNotFoundHandler((_request, reply) =>
    sendHubSpotError(reply, 404, hubspotError({ message: 'resource not found' })),
  );

  registerRateLimits(app, ctx);
  registerOAuthRoutes(app, ctx);
  registerObjectsRoutes(app, ctx);
  registerPropertiesRoutes(app, ctx);
  registerSchemasRoutes(app, ctx);
  registerOwnersRoutes(app, ctx);
  registerPipelinesRoutes(app, ctx);
  registerAssociationsRoutes(app, ctx);
  registerAccountInfoRoutes(app, ctx);

  app.post(`${CONTROL_PREFIX}/reset`, async (_request, reply) => {
    ctx.portal.reset();
    ctx.oauth.reset();
    resetRateLimits(ctx);
    realism.clearFaults();
    return reply.code(204).send();
  });
  app.post(`${CONTROL_PREFIX}/tokens/expire`, async (_request, reply) => {
    ctx.oauth.expireAll();
    return reply.code(204).send();
  });
  if (options.persistDir !== undefined) {
    persistState(app, join(options.persistDir, STATE_FILE), { portal: storesOf(ctx.portal), oauth });
  }

  return {
    app,
    ctx,
    core,
    setBaseUrl: (url) => {
      baseUrl = url;
    },
  };
}
