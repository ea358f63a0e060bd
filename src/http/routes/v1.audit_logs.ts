import { Type } from 'typebox';
import { ApiError } from '../../errors/index.ts';
import { runOperation } from '../../operations/deps.ts';
import type { AuditLogFilter } from '../../providers/adapter.ts';
import { principalOf } from '../plugins/auth.ts';
import { answers, dataAnswer } from '../schemas/answers.ts';
import { AuditLogsBody } from '../schemas/bodies.ts';
import type { ApiApp, RouteServices } from './types.ts';

// The CRM's own entry, passed as it is (its keys in the CRM's order): an open record.
const Entry = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'One user action, in HubSpot’s shape: `id`, `category`, `subCategory`, `action`, `targetObjectId`, `occurredAt`, `actingUser` (`userId`, `userEmail`).',
});

/** A real instant: parses, and its calendar date exists (`2026-02-30` does not, though Date.parse takes it). */
function isInstant(value: string): boolean {
  const [y, m, d] = value.slice(0, 10).split('-').map(Number);
  const day = new Date(Date.UTC(y ?? 0, (m ?? 1) - 1, d ?? 0));
  return !Number.isNaN(Date.parse(value)) && day.getUTCMonth() === (m ?? 1) - 1 && day.getUTCDate() === d;
}

/** The filter as the provider takes it; a time range that ends before it starts is refused here. */
function filterOf(data: NonNullable<AuditLogsBody['data']>): AuditLogFilter {
  const after = data.occurred_after;
  const before = data.occurred_before;
  for (const [path, value] of [
    ['/data/occurred_after', after],
    ['/data/occurred_before', before],
  ] as const) {
    if (value !== undefined && !isInstant(value))
      throw new ApiError(
        'invalid_body',
        `${value} is not a valid date. Use ISO 8601, e.g. 2026-03-01T00:00:00Z.`,
        { details: [{ path, message: 'not a valid date' }] },
      );
  }
  if (after !== undefined && before !== undefined && Date.parse(after) >= Date.parse(before))
    throw new ApiError('invalid_body', 'occurred_after must be earlier than occurred_before.', {
      details: [{ path: '/data/occurred_before', message: 'must be later than occurred_after' }],
    });
  const iso = (v: string | undefined) => (v === undefined ? undefined : new Date(v).toISOString());
  return {
    occurredAfter: iso(after),
    occurredBefore: iso(before),
    actingUserIds: data.acting_user_ids,
    newestFirst: data.order === 'newest_first',
    limit: data.limit,
  };
}

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/audit_logs',
    {
      schema: {
        operationId: 'readAuditLogs',
        'x-crm-operation': 'audit_logs',
        summary: 'Read the account’s audit log',
        description:
          'HubSpot’s account activity audit log: user actions (CRM record creates, property value updates, deletes, property and pipeline changes, sign-ins, security actions, …) with who made them and when, in HubSpot’s shape (`id`, `category`, `subCategory`, `action`, `targetObjectId`, `occurredAt`, `actingUser`). Filters: `occurred_after` / `occurred_before` (exclusive), `acting_user_ids` (any of them), `order`. The service follows HubSpot’s pages up to `limit` entries per answer (default 1 000) and returns `next_cursor` while more remain; send `{"cursor": …}` to continue. HubSpot offers it on Enterprise accounts, to connections granted the `account-info.security.read` scope: without it, 503 `crm_scope_missing`. The history of one record’s properties is read with get’s `propertiesWithHistory`.',
        tags: ['Query'],
        body: AuditLogsBody,
        response: answers(
          {
            200: dataAnswer(
              Type.Object({
                records: Type.Array(Entry),
                done: Type.Boolean(),
                next_cursor: Type.Union([Type.String(), Type.Null()]),
              }),
              'One page of entries.',
            ),
          },
          [400, 403, 413, 415, 422, 502, 503],
        ),
      },
    },
    async (request) => {
      const { data, cursor } = request.body;
      if (data !== undefined && cursor !== undefined) {
        throw new ApiError(
          'invalid_body',
          'Send either "data" (filters of a new read) or "cursor" (to continue one), not both.',
          { details: [{ path: '/cursor', message: 'data and cursor exclude each other' }] },
        );
      }
      const page = await runOperation(
        ctx.operations,
        principalOf(request).connection,
        'audit_logs',
        cursor === undefined ? { filter: filterOf(data ?? {}) } : { cursor },
      );
      return { data: page };
    },
  );
}
