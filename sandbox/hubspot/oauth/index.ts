import type { HubSpotSandboxOptions } from '../context.ts';
import { resolveCredentials } from '../context.ts';
import { API_USER_ID, DEFAULT_PORTAL_ID } from '../model/portal.ts';
import { OAuthState } from './state.ts';

export { registerOAuthRoutes } from './routes.ts';
export { OAuthState, type OAuthStateOptions, TOKEN_ERRORS } from './state.ts';
export { DEFAULT_SCOPES } from './tokens.ts';

/** The portal's OAuth app and private app, from the sandbox options (bootstrap credentials accepted from the start). */
export function createHubSpotAuth(options: HubSpotSandboxOptions, clock?: () => number): OAuthState {
  return new OAuthState({
    portalId: options.portalId ?? DEFAULT_PORTAL_ID,
    userId: Number(API_USER_ID),
    credentials: resolveCredentials(options),
    ...(options.accessTokenTtlSeconds !== undefined
      ? { accessTokenTtlSeconds: options.accessTokenTtlSeconds }
      : {}),
    ...(clock !== undefined ? { clock } : {}),
  });
}
