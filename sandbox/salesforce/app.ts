import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONTROL_PREFIX, createSandboxApp, type FaultKind } from '../shared/index.ts';
import { registerBulkRoutes } from './bulk/index.ts';
import {
  createContext,
  markLockFault,
  type SalesforceContext,
  type StartSalesforceSandboxOptions,
} from './context.ts';
import { registerLimits } from './limits/index.ts';
import { registerRecordCount } from './limits/record-count.ts';
import { registerOAuthRoutes } from './oauth/index.ts';
import { persistSalesforce } from './persist.ts';
import { registerCollectionRoutes } from './rest/collections.ts';
import { DATA_PREFIX, NOT_FOUND, sendErrors, UNABLE_TO_LOCK_ROW } from './rest/common.ts';
import { registerCompositeRoutes } from './rest/composite.ts';
import { registerDirectoryRoutes } from './rest/directory.ts';
import { registerLayoutRoutes } from './rest/layouts.ts';
import { registerListViewRoutes } from './rest/listviews.ts';
import { multipartRecord } from './rest/multipart.ts';
import { registerProcessRoutes } from './rest/process.ts';
import { registerQueryRoutes } from './rest/query.ts';
import { registerRecentRoutes } from './rest/recent.ts';
import { registerSearchRoutes } from './rest/search.ts';
import { registerSObjectRoutes } from './rest/sobjects.ts';
import { registerVersionRoutes } from './rest/versions.ts';
import { registerToolingRoutes } from './tooling/index.ts';

const INVALID_SESSION = [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }];

function invalidSession(reply: FastifyReply): FastifyReply {
  reply.header('www-authenticate', 'Token');
  return sendErrors(reply, 401, INVALID_SESSION);
}

/** Injected faults as Salesforce answers them. */
function renderFault(
  fault: FaultKind,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply | undefined {
  switch (fault) {
    case 'error503':
      return sendErrors(reply, 503, [{ message: 'Server too busy', errorCode: 'SERVER_UNAVAILABLE' }]);
    case 'rateLimit':
      return sendErrors(reply, 403, [
        { message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' },
      ]);
    case 'expireToken':
      return invalidSession(reply);
    case 'lock': {
      // Collections and Bulk report a row lock per record: the handler runs and fails every row.
      if (request.callKind.startsWith('collections.') || request.callKind.startsWith('bulk')) {
        markLockFault(request);
        // Nothing sent: the call goes on to the handler, which fails each row.
        return undefined;
      }
      const id = (request.params as { id?: string } | undefined)?.id;
      const e = UNABLE_TO_LOCK_ROW(id);
      return sendErrors(reply, 400, [{ message: e.message, errorCode: e.statusCode }]);
    }
    default:
      return sendErrors(reply, 500, [
        {
          message:
            'An unexpected error occurred. Please include this ErrorId if you contact support: 1928374650-41234 (-1204577317)',
          errorCode: 'UNKNOWN_EXCEPTION',
        },
      ]);
  }
}

/**
 * Salesforce serves `https://host//services/data/v62.0//sobjects/` as it serves the clean path:
 * clients that join an instance URL ending in `/` with a path starting with one, or that add a
 * trailing slash, are served alike. Runs before routing, so every hook sees the clean path.
 */
export function normalizePath(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  let clean = path.replace(/\/{2,}/g, '/');
  if (clean.length > 1 && clean.endsWith('/') && clean !== `${DATA_PREFIX}/`) clean = clean.slice(0, -1);
  return clean === path ? url : `${clean}${q < 0 ? '' : url.slice(q)}`;
}

/** The versions list is public; every other data API call needs a live session. */
function needsSession(url: string): boolean {
  if (!url.startsWith(`${DATA_PREFIX}/`)) return false;
  const path = url.split('?')[0] ?? url;
  return path !== `${DATA_PREFIX}/`;
}

function installParsersAndErrors(app: FastifyInstance): void {
  // An empty JSON body (DELETE with a content type) is no error in Salesforce.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      const err = new Error(e instanceof Error ? e.message : 'malformed JSON') as Error & {
        statusCode: number;
        code: string;
      };
      err.statusCode = 400;
      err.code = 'JSON_PARSER_ERROR';
      done(err, undefined);
    }
  });
  // Record inserts with a blob field may come as multipart/form-data (see multipart.ts).
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (req, body, done) => {
    const record = multipartRecord(body as Buffer, String(req.headers['content-type'] ?? ''));
    if (record !== null) return done(null, record);
    const err = new Error(
      'A multipart record body needs a JSON part named entity_<object> (the fields) and a binary part named after the blob field',
    ) as Error & { statusCode: number; code: string };
    err.statusCode = 400;
    err.code = 'INVALID_MULTIPART_REQUEST';
    done(err, undefined);
  });
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (!request.url.startsWith('/services/')) return reply.code(status).send(error);
    if (status >= 500) {
      request.log.error(error);
      return sendErrors(reply, 500, [
        { message: 'An unexpected error occurred.', errorCode: 'UNKNOWN_EXCEPTION' },
      ]);
    }
    const code =
      error.code === 'JSON_PARSER_ERROR' || error.code === 'INVALID_MULTIPART_REQUEST'
        ? error.code
        : 'INVALID_FIELD';
    return sendErrors(reply, status, [{ message: error.message, errorCode: code }]);
  });
  app.setNotFoundHandler((_request, reply) => sendErrors(reply, 404, [NOT_FOUND]));
}

/** The Salesforce sandbox's Fastify app with every route; not listening yet. */
export function buildSalesforceApp(options: StartSalesforceSandboxOptions = {}): {
  app: FastifyInstance;
  ctx: SalesforceContext & { setBaseUrl(url: string): void };
} {
  const core = createSandboxApp({
    name: 'salesforce',
    renderFault,
    rewriteUrl: normalizePath,
    ...(options.realism !== undefined ? { realism: options.realism } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  const { app } = core;
  const ctx = createContext(options, core.realism, core.accounting);
  installParsersAndErrors(app);

  app.addHook('onRequest', async (request, reply) => {
    if (!needsSession(request.url) || reply.sent) return;
    const auth = request.headers.authorization ?? '';
    const token = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(auth)?.[1];
    if (token === undefined || !ctx.oauth.verifyAccessToken(token).ok) return invalidSession(reply);
  });
  // After the session check: refused sessions do not use the daily allowance.
  registerLimits(app, ctx);

  app.post(`${CONTROL_PREFIX}/reset`, { config: { uncounted: true } }, async (_req, reply) => {
    ctx.reset();
    return reply.code(204).send();
  });

  registerOAuthRoutes(app, ctx);
  registerVersionRoutes(app, ctx);
  registerRecordCount(app, ctx);
  registerSObjectRoutes(app, ctx);
  registerCollectionRoutes(app, ctx);
  registerQueryRoutes(app, ctx);
  registerRecentRoutes(app, ctx);
  registerSearchRoutes(app, ctx);
  registerLayoutRoutes(app, ctx);
  registerListViewRoutes(app, ctx);
  registerDirectoryRoutes(app, ctx);
  registerCompositeRoutes(app, ctx);
  registerProcessRoutes(app, ctx);
  registerBulkRoutes(app, ctx);
  registerToolingRoutes(app, ctx);
  if (options.persistDir !== undefined) persistSalesforce(app, ctx, options.persistDir);
  return { app, ctx };
}
