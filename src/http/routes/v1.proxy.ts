import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { IDEMPOTENCY_HEADER, parseIdempotencyKey } from '../../jobs/idempotency.ts';
import { passthrough } from '../../operations/passthrough.ts';
import type { HttpMethod } from '../../providers/client/types.ts';
import { keyedPassthrough } from '../durable.ts';
import { principalOf } from '../plugins/auth.ts';
import { answers, noBody } from '../schemas/answers.ts';
import type { ApiApp, RouteServices } from './types.ts';

const PREFIX = '/v1/proxy/';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

function hasBody(raw: IncomingMessage): boolean {
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

export function register(app: ApiApp, ctx: RouteServices): void {
  // Own scope: any content type, the body an unread stream piped to the CRM (no JSON body limit).
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    for (const method of METHODS) {
      scope.route({
        method,
        url: '/v1/proxy/*',
        schema: {
          operationId: `passThrough${method[0]}${method.slice(1).toLowerCase()}`,
          'x-crm-operation': 'passthrough',
          summary: 'Pass a request through to the CRM',
          description:
            "Sends the request (method, body, allowed headers, query string) to `target_url` — a full URL on the connection's own CRM API host (the org’s instance URL, `https://api.hubapi.com/...`), or a path starting with `/` — authenticated as the connected account, and returns the CRM's answer as it is: status, body and headers, error statuses included, redirects not followed. Other hosts, ports, schemes, IP literals, user-info and encoded separators are refused with 400 `target_not_allowed` before anything is sent. 502 `crm_unreachable` only when the CRM gave no answer.",
          tags: ['Pass-through'],
          headers: Type.Object({
            'Idempotency-Key': Type.Optional(
              Type.String({
                description:
                  'On POST and PATCH: the CRM’s answer (status, headers, body up to the JSON body limit) is stored when it arrives, and a retry with the same key and request gets it again with `Idempotent-Replayed: true`, without a CRM call (rules as on the record writes). Not forwarded to the CRM.',
              }),
            ),
          }),
          response: answers(
            { 200: noBody("The CRM's own answer (any status the CRM gives).") },
            [400, 409, 413, 422, 502, 503],
          ),
        },
        handler: async (request, reply) => {
          // The raw URL keeps the target exactly as sent (Fastify's wildcard param is decoded).
          const raw = request.raw.url ?? request.url;
          const afterPrefix = raw.slice(raw.indexOf(PREFIX) + PREFIX.length);
          const queryAt = afterPrefix.indexOf('?');
          const target = queryAt === -1 ? afterPrefix : afterPrefix.slice(0, queryAt);
          const query = queryAt === -1 ? '' : afterPrefix.slice(queryAt);
          const relative =
            /^[a-z][a-z0-9+.-]*(?::|%3a)/i.test(target) || target.startsWith('/') ? target : `/${target}`;
          const body =
            request.body instanceof Readable ? request.body : hasBody(request.raw) ? request.raw : undefined;
          const send = (sent: Readable | undefined) =>
            passthrough(ctx.operations, principalOf(request).connection, {
              method: request.method as HttpMethod,
              rawTarget: relative,
              query,
              headers: request.headers,
              body: sent,
            });
          const key = parseIdempotencyKey(request.headers[IDEMPOTENCY_HEADER]);
          if (key !== undefined && (request.method === 'POST' || request.method === 'PATCH'))
            return keyedPassthrough(ctx, request, reply, key, body, send);
          const result = await send(body);
          reply.code(result.status).headers(result.headers);
          if (result.status === 204 || result.status === 304) {
            if (result.body instanceof Readable) result.body.resume();
            return reply.send();
          }
          return reply.send(result.body);
        },
      });
    }
  });
}
