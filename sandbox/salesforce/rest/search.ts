import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SalesforceContext } from '../context.ts';
import { SoqlError } from '../query/errors.ts';
import { parseSosl, runSearch, type SearchScope, type SearchSpec } from '../query/sosl.ts';
import { isRecord, sendErrors, sendJson, sendKernelError, versionOf } from './common.ts';

const SCOPES = new Set(['ALL', 'NAME', 'EMAIL', 'PHONE']);

const bad = (reply: FastifyReply, message: string) =>
  sendErrors(reply, 400, [{ errorCode: 'INVALID_SEARCH', message }]);

type PostBody = {
  q?: unknown;
  fields?: unknown;
  sobjects?: unknown;
  in?: unknown;
  overallLimit?: unknown;
  defaultLimit?: unknown;
};

/** A parameterized search (GET query parameters or POST body) as the same search spec SOSL gives. */
function specOf(params: PostBody & Record<string, unknown>, fromQuery: boolean): SearchSpec | string {
  if (typeof params.q !== 'string' || params.q.trim() === '') return 'q is required: the search term';
  const scope = typeof params.in === 'string' ? params.in.toUpperCase() : 'ALL';
  if (!SCOPES.has(scope)) return `in must be one of ALL, NAME, EMAIL, PHONE, got '${String(params.in)}'`;
  const list = (v: unknown): string[] =>
    Array.isArray(v)
      ? v.map(String)
      : typeof v === 'string'
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [];
  const defaultFields = list(params.fields);
  const defaultLimit = params.defaultLimit === undefined ? undefined : Number(params.defaultLimit);
  const returning: SearchSpec['returning'] = [];
  if (fromQuery) {
    for (const name of list(params.sobject)) {
      const fields = list(params[`${name}.fields`]);
      const limit = params[`${name}.limit`] === undefined ? defaultLimit : Number(params[`${name}.limit`]);
      returning.push({
        object: name,
        fields: fields.length > 0 ? fields : defaultFields,
        ...(limit !== undefined ? { limit } : {}),
      });
    }
  } else if (params.sobjects !== undefined) {
    if (!Array.isArray(params.sobjects)) return 'sobjects must be an array of {"name", "fields", "limit"}';
    for (const s of params.sobjects) {
      if (!isRecord(s) || typeof s.name !== 'string') return 'each entry of sobjects needs a "name"';
      const fields = list(s.fields);
      const limit = s.limit === undefined ? defaultLimit : Number(s.limit);
      returning.push({
        object: s.name,
        fields: fields.length > 0 ? fields : defaultFields,
        ...(limit !== undefined ? { limit } : {}),
      });
    }
  }
  const spec: SearchSpec = { term: params.q, scope: scope as SearchScope, returning };
  if (params.overallLimit !== undefined) spec.limit = Number(params.overallLimit);
  return spec;
}

/** `search` (SOSL) and `parameterizedSearch` (GET and POST), over the org's text fields. */
export function registerSearchRoutes(app: FastifyInstance, ctx: SalesforceContext): void {
  app.get<{ Querystring: { q?: string } }>(
    '/services/data/:version/search',
    { config: { kind: 'rest.search' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const q = request.query.q;
      if (typeof q !== 'string' || q.trim() === '') {
        return sendErrors(reply, 400, [
          {
            errorCode: 'MALFORMED_SEARCH',
            message: 'No search term found. The search term must be enclosed in braces.',
          },
        ]);
      }
      try {
        return sendJson(reply, 200, { searchRecords: runSearch(ctx.org, parseSosl(q), version) });
      } catch (e) {
        return sendKernelError(reply, e);
      }
    },
  );

  const parameterized = async (
    version: string,
    params: PostBody & Record<string, unknown>,
    fromQuery: boolean,
    reply: FastifyReply,
  ) => {
    const spec = specOf(params, fromQuery);
    if (typeof spec === 'string') return bad(reply, spec);
    try {
      return sendJson(reply, 200, { searchRecords: runSearch(ctx.org, spec, version) });
    } catch (e) {
      if (e instanceof SoqlError)
        return sendErrors(reply, 400, [{ errorCode: e.errorCode, message: e.message }]);
      return sendKernelError(reply, e);
    }
  };
  app.get(
    '/services/data/:version/parameterizedSearch',
    { config: { kind: 'rest.parameterizedSearch' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      return parameterized(version, request.query as Record<string, unknown>, true, reply);
    },
  );
  app.post(
    '/services/data/:version/parameterizedSearch',
    { config: { kind: 'rest.parameterizedSearch' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      if (!isRecord(request.body))
        return bad(reply, 'the body must be a JSON object: {"q": "term", "sobjects": [{"name": "Account"}]}');
      return parameterized(version, request.body, false, reply);
    },
  );
}
