import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SalesforceContext } from '../context.ts';
import { globalEntry } from '../org/describe.ts';
import type { ObjectMeta } from '../org/index.ts';
import { bothSlashes, isRecord, NOT_FOUND, sendErrors, sendJson, versionOf } from './common.ts';
import { describePreconditions } from './conditional.ts';
import { recentItem } from './recent.ts';
import { registerRecordRoutes } from './records.ts';

type ObjectParams = { version: string; sobject: string };

/** The object named in the path, or a 404 answered. */
export function objectOf(
  ctx: SalesforceContext,
  request: FastifyRequest,
  reply: FastifyReply,
): ObjectMeta | null {
  const meta = ctx.org.object((request.params as ObjectParams).sobject);
  if (meta === undefined) sendErrors(reply, 404, [NOT_FOUND]);
  return meta ?? null;
}

/** Describe preconditions against the time metadata last changed (see conditional.ts). */
const notModified = (ctx: SalesforceContext, request: FastifyRequest, reply: FastifyReply): boolean =>
  describePreconditions(request, reply, ctx.org.schema.lastModified);

export function registerSObjectRoutes(app: FastifyInstance, ctx: SalesforceContext): void {
  const base = '/services/data/:version/sobjects';
  for (const url of bothSlashes(base)) {
    app.get(url, { config: { kind: 'rest.describeGlobal' } }, async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null || notModified(ctx, request, reply)) return reply;
      return sendJson(reply, 200, ctx.org.describeGlobal(version));
    });
  }
  for (const url of bothSlashes(`${base}/:sobject/describe`)) {
    app.get<{ Params: ObjectParams }>(url, { config: { kind: 'rest.describe' } }, async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const meta = objectOf(ctx, request, reply);
      if (meta === null || notModified(ctx, request, reply)) return reply;
      return sendJson(reply, 200, ctx.org.describe(meta.name, version, ctx.baseUrl()));
    });
  }
  for (const url of bothSlashes(`${base}/:sobject`)) {
    app.get<{ Params: ObjectParams }>(
      url,
      { config: { kind: 'rest.sobject.info' } },
      async (request, reply) => {
        const version = versionOf(request, reply);
        if (version === null) return reply;
        const meta = objectOf(ctx, request, reply);
        if (meta === null) return reply;
        // The caller's recently viewed records of this object, as `recent` lists them.
        const recent = ctx.org
          .recentlyViewed(userOf(ctx, request), meta.name)
          .map(({ record }) => recentItem(meta, record, version));
        return sendJson(reply, 200, { objectDescribe: globalEntry(meta, version), recentItems: recent });
      },
    );
    app.post<{ Params: ObjectParams; Body: unknown }>(
      url,
      { config: { kind: 'rest.sobject.create' } },
      async (request, reply) => {
        const version = versionOf(request, reply);
        if (version === null) return reply;
        const meta = objectOf(ctx, request, reply);
        if (meta === null) return reply;
        const body = request.body;
        if (!isRecord(body)) {
          return sendErrors(reply, 400, [
            {
              message:
                "Json Deserialization failed on token 'null' and has left off in the middle of parsing a row. Will go to end of row to begin parsing the next row",
              errorCode: 'INVALID_FIELD',
            },
          ]);
        }
        if (Object.keys(body).some((k) => k.toLowerCase() === 'id')) {
          return sendErrors(reply, 400, [
            {
              message: 'The Id field should not be specified in the sobject data.',
              errorCode: 'INVALID_FIELD',
            },
          ]);
        }
        const [res] = ctx.org.insert(meta.name, [body], { userId: userOf(ctx, request) });
        if (res === undefined || !res.success || res.id === undefined) {
          return sendErrors(
            reply,
            400,
            (res?.errors ?? []).map((e) => ({
              message: e.message,
              errorCode: e.statusCode,
              fields: e.fields,
            })),
          );
        }
        reply.header('location', `/services/data/v${version}/sobjects/${meta.name}/${res.id}`);
        return sendJson(reply, 201, { id: res.id, success: true, errors: [] });
      },
    );
  }
  registerRecordRoutes(app, ctx);
}

/** The user behind the request's bearer token (the admin when it cannot tell). */
export function userOf(ctx: SalesforceContext, request: FastifyRequest): string {
  const auth = request.headers.authorization ?? '';
  const token = /^(?:Bearer|OAuth)\s+(.+)$/i.exec(auth)?.[1];
  const v = token === undefined ? null : ctx.oauth.verifyAccessToken(token);
  return v?.ok ? v.userId : ctx.org.adminUserId;
}
