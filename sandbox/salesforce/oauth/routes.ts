import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { consentPage, errorPage } from './authorize-page.ts';
import { baseUrl, countOAuthCall, identityUrl, type OAuthContext, oauthErrorReply } from './context.ts';
import { identityDocument, userInfoDocument } from './identity.ts';
import { registerSoapRoutes } from './soap.ts';
import type { TokenResult } from './state.ts';
import { tokenSignature } from './tokens.ts';

type Params = Record<string, string | undefined>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function params(source: unknown): Params {
  const out: Params = {};
  if (source !== null && typeof source === 'object') {
    for (const [k, v] of Object.entries(source)) out[k] = Array.isArray(v) ? str(v[0]) : str(v);
  }
  return out;
}

/** Client id and secret from HTTP Basic (`client_secret_basic`) when present, else from the body. */
function clientAuth(request: FastifyRequest, body: Params): { id?: string; secret?: string } {
  const header = request.headers.authorization;
  if (header?.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      return {
        id: decodeURIComponent(decoded.slice(0, colon)),
        secret: decodeURIComponent(decoded.slice(colon + 1)),
      };
    }
  }
  return {
    ...(body.client_id !== undefined ? { id: body.client_id } : {}),
    ...(body.client_secret !== undefined ? { secret: body.client_secret } : {}),
  };
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const m = header === undefined ? null : /^(?:Bearer|OAuth)\s+(.+)$/i.exec(header);
  return m?.[1] ?? str(params(request.query).oauth_token);
}

const GRANTS = ['authorization_code', 'refresh_token', 'client_credentials', 'password'] as const;

export function registerOAuthRoutes(app: FastifyInstance, ctx: OAuthContext): void {
  app.register(async (scope) => {
    if (!scope.hasContentTypeParser('application/x-www-form-urlencoded')) await scope.register(formbody);
    registerTokenRoute(scope, ctx);
    registerAuthorizeRoutes(scope, ctx);
    registerRevokeRoutes(scope, ctx);
  });
  registerIdentityRoutes(app, ctx);
  registerSoapRoutes(app, ctx);
  app.post('/__sandbox/tokens/expire', async () => ({ expired: ctx.oauth.expireAll() }));
}

function registerTokenRoute(app: FastifyInstance, ctx: OAuthContext): void {
  app.post('/services/oauth2/token', { config: { uncounted: true } }, async (request, reply) => {
    // Parameters may also come in the query string (older clients send them there); the body wins.
    const body = { ...params(request.query), ...params(request.body) };
    const grant = GRANTS.find((g) => g === body.grant_type);
    if (await countOAuthCall(ctx, request, reply, `oauth.token.${grant ?? 'unsupported'}`)) return reply;
    if (grant === undefined)
      return oauthErrorReply(reply, 400, 'unsupported_grant_type', 'grant type not supported');
    const client = clientAuth(request, body);
    // Secrets are required for every grant here, as a new connected app requires them
    // ("Require Secret for Web Server Flow" / "... for Refresh Token Flow" are on by default).
    const clientError = ctx.oauth.checkClient(client.id, client.secret, true);
    if (clientError !== null)
      return oauthErrorReply(reply, clientError.status, clientError.error, clientError.description);
    let result: TokenResult;
    if (grant === 'authorization_code') {
      if (body.code === undefined)
        return oauthErrorReply(reply, 400, 'invalid_request', 'missing required code parameter');
      result = ctx.oauth.exchangeCode(body.code, body.redirect_uri, body.code_verifier);
    } else if (grant === 'refresh_token') {
      if (body.refresh_token === undefined)
        return oauthErrorReply(reply, 400, 'invalid_request', 'missing required refresh_token parameter');
      result = ctx.oauth.refresh(body.refresh_token);
    } else if (grant === 'password') {
      result = ctx.oauth.passwordLogin(body.username, body.password);
    } else {
      result = ctx.oauth.clientCredentials();
    }
    if (!result.ok) return oauthErrorReply(reply, result.status, result.error, result.description);
    const id = identityUrl(request, ctx.oauth.orgId, result.userId);
    // Field order as Salesforce sends it; no `expires_in` (the session timeout is not announced).
    const answer = {
      access_token: result.accessToken,
      ...(result.refreshToken !== undefined ? { refresh_token: result.refreshToken } : {}),
      signature: tokenSignature(ctx.oauth.credentials.clientSecret, id, result.issuedAt),
      scope: result.scope,
      instance_url: baseUrl(request),
      id,
      token_type: 'Bearer',
      issued_at: result.issuedAt,
    };
    return reply
      .header('content-type', 'application/json;charset=UTF-8')
      .header('cache-control', 'no-cache,must-revalidate,max-age=0,no-store,private')
      .send(JSON.stringify(answer));
  });
}

function redirectWith(reply: FastifyReply, redirectUri: string, query: Params) {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
  return reply.redirect(url.toString(), 302);
}

function registerAuthorizeRoutes(app: FastifyInstance, ctx: OAuthContext): void {
  /** Checks shared by the page and its form post; an answer when the request cannot go on. */
  const check = (reply: FastifyReply, p: Params) => {
    if (p.client_id !== ctx.oauth.credentials.clientId) {
      return reply
        .code(400)
        .type('text/html;charset=UTF-8')
        .send(errorPage('invalid_client_id', 'client identifier invalid'));
    }
    if (p.redirect_uri === undefined || !ctx.oauth.redirectUriAllowed(p.redirect_uri)) {
      return reply
        .code(400)
        .type('text/html;charset=UTF-8')
        .send(errorPage('redirect_uri_mismatch', 'redirect_uri must match configuration'));
    }
    if (p.response_type !== 'code') {
      return redirectWith(reply, p.redirect_uri, {
        error: 'unsupported_response_type',
        error_description: 'response type not supported',
        state: p.state,
      });
    }
    return null;
  };
  const FIELDS = ['response_type', 'client_id', 'redirect_uri', 'state', 'scope', 'code_challenge'] as const;

  app.get('/services/oauth2/authorize', { config: { kind: 'oauth.authorize' } }, async (request, reply) => {
    const p = params(request.query);
    const stop = check(reply, p);
    if (stop !== null) return stop;
    const fields: Record<string, string> = {};
    for (const k of FIELDS) {
      const v = p[k];
      if (v !== undefined) fields[k] = v;
    }
    return reply.type('text/html;charset=UTF-8').send(consentPage(fields, ctx.oauth.user.username));
  });

  app.post(
    '/services/oauth2/authorize',
    { config: { kind: 'oauth.authorize.decision' } },
    async (request, reply) => {
      const p = params(request.body);
      const stop = check(reply, p);
      if (stop !== null) return stop;
      const redirectUri = p.redirect_uri ?? '';
      if (p.action !== 'allow') {
        return redirectWith(reply, redirectUri, {
          error: 'access_denied',
          error_description: 'end-user denied authorization',
          state: p.state,
        });
      }
      const code = ctx.oauth.issueCode({
        redirectUri,
        scope: p.scope ?? 'api refresh_token',
        codeChallenge: p.code_challenge ?? null,
      });
      return redirectWith(reply, redirectUri, { code, state: p.state });
    },
  );
}

/**
 * Revoke errors come back form-encoded, not as JSON (`error=unsupported_token_type&error_description=
 * this%20token%20type%20is%20not%20supported`, seen in client reports; jsforce parses them with
 * `querystring`). A token that looks like one of ours but is unknown or already revoked is
 * `invalid_token`; anything else is `unsupported_token_type`.
 */
function revokeError(reply: FastifyReply, error: string, description: string) {
  return reply
    .code(400)
    .header('content-type', 'application/x-www-form-urlencoded;charset=UTF-8')
    .send(`error=${error}&error_description=${encodeURIComponent(description)}`);
}

function registerRevokeRoutes(app: FastifyInstance, ctx: OAuthContext): void {
  const revoke = async (token: string | undefined, reply: FastifyReply) => {
    if (token !== undefined && ctx.oauth.revoke(token)) return reply.code(200).send();
    if (token !== undefined && /^(00D[A-Za-z0-9]{12}!|5Aep861)/.test(token))
      return revokeError(reply, 'invalid_token', 'invalid token');
    return revokeError(reply, 'unsupported_token_type', 'this token type is not supported');
  };
  app.post('/services/oauth2/revoke', { config: { kind: 'oauth.revoke' } }, async (request, reply) =>
    revoke(params(request.body).token ?? params(request.query).token, reply),
  );
  app.get('/services/oauth2/revoke', { config: { kind: 'oauth.revoke' } }, async (request, reply) =>
    revoke(params(request.query).token, reply),
  );
}

function registerIdentityRoutes(app: FastifyInstance, ctx: OAuthContext): void {
  // Both answer a plain-text 403 `Bad_OAuth_Token` for a missing, expired or revoked token.
  const badToken = (reply: FastifyReply) =>
    reply.code(403).type('text/plain;charset=UTF-8').send('Bad_OAuth_Token');
  app.get('/services/oauth2/userinfo', { config: { kind: 'oauth.userinfo' } }, async (request, reply) => {
    const token = bearer(request);
    const v = token === undefined ? null : ctx.oauth.verifyAccessToken(token);
    if (v === null || !v.ok) return badToken(reply);
    return reply.send(userInfoDocument(request, ctx.oauth, v.userId));
  });
  app.get<{ Params: { orgId: string; userId: string } }>(
    '/id/:orgId/:userId',
    { config: { kind: 'oauth.identity' } },
    async (request, reply) => {
      const token = bearer(request);
      const v = token === undefined ? null : ctx.oauth.verifyAccessToken(token);
      if (v === null || !v.ok) return badToken(reply);
      const { orgId, userId } = request.params;
      // An identity URL of another org or user: 404 `Bad_Id` (seen in client reports).
      if (orgId !== v.orgId || userId !== v.userId) {
        return reply.code(404).type('text/plain;charset=UTF-8').send('Bad_Id');
      }
      return reply.send(identityDocument(request, ctx.oauth, v.userId));
    },
  );
}
