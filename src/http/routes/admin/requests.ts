import { Type } from 'typebox';
import type { AdminService } from '../../../admin/service.ts';
import { STATUS_CLASSES } from '../../../admin/service.ts';
import { ApiError } from '../../../errors/index.ts';
import type { ApiApp } from '../types.ts';
import { data, doc } from './doc.ts';
import { RequestEntry } from './schemas.ts';

/** The request log, newest first, filtered as the console filters it. */
export function requestRoutes(api: ApiApp, admin: AdminService): void {
  api.get(
    '/v1/admin/requests',
    {
      schema: {
        ...doc(
          'adminListRequests',
          'Query the request log',
          'Answered API requests, newest first: time, method, path, status, latency, CRM calls spent, interface used, request id, token and connection. Bodies are never stored. Entries are kept `CRM_PROXY_REQUEST_LOG_DAYS` days (7).',
          { '200': { description: 'The entries.', schema: data(Type.Array(RequestEntry)) } },
          [400],
        ),
        querystring: Type.Object(
          {
            connection_id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,80}$' })),
            token_id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,80}$' })),
            status_class: Type.Optional(
              Type.Union(
                STATUS_CLASSES.map((c) => Type.Literal(`${c}xx`)),
                { description: '`2xx`, `3xx`, `4xx` or `5xx`.' },
              ),
            ),
            request_id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._:-]{1,128}$' })),
            before: Type.Optional(
              Type.String({
                pattern: '^\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z$',
                description: 'Entries before this instant (paging).',
              }),
            ),
            limit: Type.Optional(
              Type.String({ pattern: '^[0-9]{1,4}$', description: '1–1000, default 100.' }),
            ),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const q = request.query;
      const limit = q.limit === undefined ? 100 : Number(q.limit);
      if (limit < 1 || limit > 1000) {
        throw new ApiError('invalid_value', 'limit must be from 1 to 1000.', {
          details: [{ field: 'limit' }],
        });
      }
      return {
        data: await admin.requests({
          connectionId: q.connection_id,
          tokenId: q.token_id,
          statusClass: q.status_class === undefined ? undefined : Number(q.status_class[0]),
          requestId: q.request_id,
          before: q.before,
          limit,
        }),
      };
    },
  );
}

/** Requests and errors per hour, per connection. */
export function usageRoute(api: ApiApp, admin: AdminService): void {
  api.get(
    '/v1/admin/usage',
    {
      schema: {
        ...doc(
          'adminUsage',
          'Requests and errors per hour',
          'Per connection, one value per hour, oldest first: requests, and errors (answers with status 400 or more).',
          {
            '200': {
              description: 'One series per connection.',
              schema: data(
                Type.Array(
                  Type.Object({
                    connectionId: Type.Union([Type.String(), Type.Null()]),
                    hours: Type.Array(Type.String()),
                    requests: Type.Array(Type.Integer()),
                    errors: Type.Array(Type.Integer()),
                  }),
                ),
              ),
            },
          },
          [400],
        ),
        querystring: Type.Object(
          {
            connection_id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,80}$' })),
            hours: Type.Optional(
              Type.String({ pattern: '^[0-9]{1,3}$', description: '1–168, default 168 (7 days).' }),
            ),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const hours = request.query.hours === undefined ? 168 : Number(request.query.hours);
      if (hours < 1 || hours > 168) {
        throw new ApiError('invalid_value', 'hours must be from 1 to 168.', {
          details: [{ field: 'hours' }],
        });
      }
      return { data: await admin.usage(hours, request.query.connection_id) };
    },
  );
}
