import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, sendHubSpotError } from '../errors.ts';
import { consentPage, errorPage } from './authorize-page.ts';
import { countCall } from './calls.ts';
import { OAuthState, type TokenError, type TokenResult } from './state.ts';

type Params = Record<string, string | undefined>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Form or query fields as single strings (a repeated field keeps its first value). */
function params(source: unknown): Params {
  const out: Params = {};
  if (source !== null && typeof source === 'object') {
    for (const [k, v] of Object.entries(source)) out[k] = Array.isArray(v) ? str(v[0]) : str(v);
  }
  return out;
}

/** HubSpot's scope lists are space separated (`+` in a query string decodes to a space). */
const scopeList = (s: string | undefined): string[] => (s ?? '').split(/[\s,]+/).filter((x) => x !== '');

const json = (reply: FastifyReply) => reply.header('content-type', 'application/json;charset=utf-8');

/** Token-endpoint failure: HTTP 400 with the RFC 6749 pair and HubSpot's legacy `status`/`message`. */
function tokenErrorReply(reply: FastifyReply, e: TokenError): FastifyReply {
  return json(reply)
    .code(400)
    .send({ error: e.error, error_description: e.message, status: e.status, message: e.message });
}

const GRANTS = ['authorization_code', 'refresh_token'] as const;

/** The app's `ctx.oauth` must be the state this module builds (`createHubSpotAuth`). */
function oauthState(ctx: HubSpotContext): OAuthState {
  if (!(ctx.oauth instanceof OAuthState))
    throw new Error('OAuth routes need ctx.oauth from createHubSpotAuth()');
  return ctx.oauth;
}

/**
 * OAuth 2.0 of a HubSpot app: the consent page, the token endpoints (v1 and v3, same wire shapes),
 * token metadata, introspection and revocation. These routes authenticate themselves (client
 * credentials in the form, or the token in the path), so the bearer check leaves `/oauth` alone.
 */
export function registerOAuthRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  const state = oauthState(ctx);
  app.register(async (scope) => {
    if (!scope.hasContentTypeParser('application/x-www-form-urlencoded')) await scope.register(formbody);
    for (const version of ['v1', 'v3']) registerTokenRoute(scope, ctx, state, `/oauth/${version}/token`);
    registerIntrospectionRoutes(scope, ctx, state);
    registerAuthorizeRoutes(scope, ctx, state);
  });
  registerTokenInfoRoutes(app, state);
}

function registerTokenRoute(
  app: FastifyInstance,
  ctx: HubSpotContext,
  state: OAuthState,
  path: string,
): void {
  app.post(path, { config: { uncounted: true } }, async (request, reply) => {
    // Only form fields count: a JSON body reads as "no client id" (HubSpot reads form parameters only).
    const isForm = (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const body = isForm ? params(request.body) : {};
    const grant = GRANTS.find((g) => g === body.grant_type);
    if (await countCall(ctx, request, reply, `oauth.token.${grant ?? 'unsupported'}`)) return reply;
    const clientError = state.checkClient(body.client_id, body.client_secret);
    if (clientError !== null) return tokenErrorReply(reply, clientError);
    let result: TokenResult;
    if (grant === 'authorization_code')
      result = state.exchangeCode(body.code, body.redirect_uri, body.code_verifier);
    else if (grant === 'refresh_token') result = state.refresh(body.refresh_token);
    else return tokenErrorReply(reply, { ok: false, ...UNSUPPORTED_GRANT });
    if (!result.ok) return tokenErrorReply(reply, result);
    // Key order of HubSpot's v1 doc example first, then the spec's optional `AccessTokenResponse` keys.
    return json(reply).send({
      token_type: 'bearer',
      refresh_token: result.refreshToken,
      access_token: result.accessToken,
      expires_in: result.expiresIn,
      hub_id: result.hubId,
      user_id: result.userId,
      scopes: result.scopes,
      token_use: 'access_token',
    });
  });
}

const UNSUPPORTED_GRANT = {
  status: 'BAD_GRANT_TYPE',
  error: 'unsupported_grant_type',
  message: 'missing or unsupported grant_type',
} as const;

function registerTokenInfoRoutes(app: FastifyInstance, state: OAuthState): void {
  // Unknown / expired tokens: HubSpot's exact answer is not documented; a 404 in the standard error shape.
  const notFound = (reply: FastifyReply, what: string) =>
    sendHubSpotError(
      reply,
      404,
      hubspotError({ message: `${what} not found`, category: 'OBJECT_NOT_FOUND' }),
    );

  app.get<{ Params: { token: string } }>(
    '/oauth/v1/access-tokens/:token',
    { config: { kind: 'oauth.tokenInfo' } },
    async (request, reply) => {
      const info = state.accessTokenInfo(request.params.token);
      return info === null ? notFound(reply, 'Access token') : json(reply).send(info);
    },
  );
  app.get<{ Params: { token: string } }>(
    '/oauth/v1/refresh-tokens/:token',
    { config: { kind: 'oauth.refreshTokenInfo' } },
    async (request, reply) => {
      const info = state.refreshTokenInfo(request.params.token);
      return info === null ? notFound(reply, 'Refresh token') : json(reply).send(info);
    },
  );
  app.delete<{ Params: { token: string } }>(
    '/oauth/v1/refresh-tokens/:token',
    { config: { kind: 'oauth.refreshToken.delete' } },
    async (request, reply) =>
      state.revokeRefreshToken(request.params.token)
        ? reply.code(204).send()
        : notFound(reply, 'Refresh token'),
  );
}

function registerIntrospectionRoutes(app: FastifyInstance, ctx: HubSpotContext, state: OAuthState): void {
  // The spec names the field `token`; HubSpot's prose guide sends `access_token` / `refresh_token`: accept all three.
  const tokenOf = (p: Params) => p.token ?? p.access_token ?? p.refresh_token;

  app.post('/oauth/v3/token/introspect', { config: { kind: 'oauth.introspect' } }, async (request, reply) => {
    const p = params(request.body);
    const clientError = state.checkClient(p.client_id, p.client_secret);
    if (clientError !== null) return tokenErrorReply(reply, clientError);
    const token = tokenOf(p) ?? '';
    const hint = p.token_type_hint ?? (p.refresh_token !== undefined ? 'refresh_token' : 'access_token');
    const clientId = ctx.credentials.clientId;
    if (hint === 'refresh_token') {
      const info = state.refreshTokenInfo(token);
      if (info !== null) {
        const { token_type: _t, ...rest } = info;
        return json(reply).send({
          active: true,
          ...rest,
          app_id: state.appId,
          token_type: 'Bearer',
          token_use: 'refresh_token',
          client_id: clientId,
        });
      }
    } else {
      const info = state.accessTokenInfo(token);
      if (info !== null) {
        return json(reply).send({
          active: true,
          ...info,
          client_id: clientId,
          token_type: 'Bearer',
          token_use: 'access_token',
        });
      }
    }
    return json(reply).send({ active: false });
  });

  app.post('/oauth/v3/token/revoke', { config: { kind: 'oauth.revoke' } }, async (request, reply) => {
    const p = params(request.body);
    const clientError = state.checkClient(p.client_id, p.client_secret);
    if (clientError !== null) return tokenErrorReply(reply, clientError);
    // RFC 7009: revoking an unknown token is not an error.
    state.revokeRefreshToken(tokenOf(p) ?? '');
    return reply.code(200).send();
  });
}

/** Fields of the authorize request the consent page carries to its decision post. */
const CONSENT_FIELDS = [
  'client_id',
  'redirect_uri',
  'scope',
  'optional_scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const;

function registerAuthorizeRoutes(app: FastifyInstance, ctx: HubSpotContext, state: OAuthState): void {
  /** An HTML error page when the request cannot go on, else null. */
  const check = (reply: FastifyReply, p: Params): FastifyReply | null => {
    const html = (title: string, message: string) =>
      reply.code(400).type('text/html;charset=utf-8').send(errorPage(title, message));
    if (p.client_id !== state.credentials.clientId) return html('Authorization failed', 'Unknown client_id.');
    if (p.redirect_uri === undefined || !/^https?:\/\//i.test(p.redirect_uri)) {
      return html('Authorization failed', 'redirect_uri must be an http(s) URL.');
    }
    if (scopeList(p.scope).length === 0)
      return html('Authorization failed', 'The scope parameter is required.');
    // PKCE (RFC 7636): only S256, the method the token endpoint can check.
    if (p.code_challenge !== undefined && p.code_challenge_method !== 'S256')
      return html('Authorization failed', 'code_challenge_method must be S256.');
    return null;
  };

  const showPage = async (request: { query: unknown }, reply: FastifyReply) => {
    const p = params(request.query);
    const failed = check(reply, p);
    if (failed !== null) return failed;
    const fields: Record<string, string> = {};
    for (const k of CONSENT_FIELDS) {
      const v = p[k];
      if (v !== undefined) fields[k] = v;
    }
    return reply.type('text/html;charset=utf-8').send(
      consentPage({
        portalId: state.portalId,
        userEmail: state.userEmail,
        fields,
        scopes: scopeList(p.scope),
        optionalScopes: scopeList(p.optional_scope),
      }),
    );
  };
  app.get('/oauth/authorize', { config: { kind: 'oauth.authorize' } }, showPage);
  // Consent page pinned to one account (`app.hubspot.com/oauth/{hubId}/authorize`).
  app.get('/oauth/:hubId/authorize', { config: { kind: 'oauth.authorize' } }, showPage);

  app.post('/oauth/authorize', { config: { kind: 'oauth.authorize.decision' } }, async (request, reply) => {
    const p = params(request.body);
    const failed = check(reply, p);
    if (failed !== null) return failed;
    const url = new URL(p.redirect_uri as string);
    if (p.decision === 'allow') {
      // Optional scopes are all granted: the sandbox's installer has every permission.
      const scopes = [...new Set([...scopeList(p.scope), ...scopeList(p.optional_scope)])];
      const code = state.issueCode(p.redirect_uri as string, scopes, p.code_challenge ?? null);
      url.searchParams.set('code', code);
      // The installing user signed in to the consent page: the account's audit log shows it.
      ctx.portal.audit({
        category: 'LOGIN',
        subCategory: 'LOGIN_SUCCEEDED',
        action: 'PERFORM',
        targetObjectId: String(state.userId),
      });
    } else {
      url.searchParams.set('error', 'access_denied');
    }
    if (p.state !== undefined) url.searchParams.set('state', p.state);
    return reply.redirect(url.toString(), 302);
  });
}
