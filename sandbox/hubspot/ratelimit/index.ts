import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, rateLimitBody, sendHubSpotError } from '../errors.ts';
import { OAuthState } from '../oauth/state.ts';
import { type Policy, type RateLimitConfig, RateLimiter, type RateLimitOptions } from './limiter.ts';

export { DEFAULT_RATE_LIMITS, type RateLimitConfig, RateLimiter, type RateLimitOptions } from './limiter.ts';

const limiters = new WeakMap<HubSpotContext, RateLimiter>();

function limiterOf(ctx: HubSpotContext): RateLimiter {
  let l = limiters.get(ctx);
  if (l === undefined) {
    const clock = ctx.options.clock;
    l = new RateLimiter({
      ...(clock !== undefined ? { clock } : {}),
      ...(ctx.options as { rateLimit?: RateLimitOptions }).rateLimit,
    });
    limiters.set(ctx, l);
  }
  return l;
}

/** Counters back to zero (`POST /__sandbox/reset`); the configured limits stay. */
export function resetRateLimits(ctx: HubSpotContext): void {
  limiterOf(ctx).reset();
}

const bearer = (request: FastifyRequest): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];

/** Only the CRM APIs are metered (`/crm/v3/**` and the schemas API's `/crm-object-schemas/**`), not OAuth. */
const metered = (url: string): boolean => url.startsWith('/crm/') || url.startsWith('/crm-object-schemas/');

function body(ctx: HubSpotContext, policy: Policy, app: string) {
  if (policy !== 'ten_secondly') return rateLimitBody(policy);
  // groupName as captured for private apps (`…:{appId}:{portalId}`); the OAuth spelling is an assumption.
  const group = app === 'private_app' ? 'private_app-api-calls-ten-secondly' : 'oauth-api-calls-ten-secondly';
  const appId = ctx.oauth instanceof OAuthState ? ctx.oauth.appId : 0;
  return hubspotError({
    message: 'You have reached your ten_secondly_rolling limit.',
    errorType: 'RATE_LIMIT',
    policyName: 'TEN_SECONDLY_ROLLING',
    groupName: `publicapi:${group}:${appId}:${ctx.portal.portalId}`,
  });
}

/**
 * HubSpot's rate limits as an `onRequest` hook. Register it after the app's bearer check: it
 * re-reads the token kind (private-app calls draw on the daily allowance, OAuth calls do not) and
 * lets unauthenticated calls through untouched (the bearer check has answered them already).
 */
export function registerRateLimits(app: FastifyInstance, ctx: HubSpotContext): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!metered(request.url)) return;
    const auth = ctx.oauth.verify(bearer(request));
    if (!auth.ok) return;
    const decision = limiterOf(ctx).check({
      app: auth.kind,
      search: request.routeOptions.config.kind === 'objects.search',
      daily: auth.kind === 'private_app',
    });
    reply.headers(decision.headers);
    if (decision.refused !== null)
      return sendHubSpotError(reply, 429, body(ctx, decision.refused, auth.kind));
  });

  app.get('/__sandbox/rate-limits', async () => ({
    ...limiterOf(ctx).config,
    usage: limiterOf(ctx).usage(),
  }));
  app.patch<{ Body: Partial<RateLimitConfig> }>(
    '/__sandbox/rate-limits',
    {
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            enabled: { type: 'boolean' },
            perTenSeconds: { type: 'integer', minimum: 1 },
            daily: { type: 'integer', minimum: 1 },
            searchPerSecond: { type: 'integer', minimum: 1 },
          },
        },
      },
    },
    async (request): Promise<RateLimitConfig> => limiterOf(ctx).update(request.body),
  );
}
