import type { AuditLogPage } from '../../domain/operations.ts';
import { ApiError } from '../../errors/index.ts';
import type { AuditLogFilter, Handler } from '../adapter.ts';
import { type OutboundResponse, parseJson } from '../client/types.ts';
import { verifyCursor } from '../cursor.ts';
import { crmErrorFromResponse } from '../errors.ts';
import type { HubSpotApi, PerConnectionState } from './connection-state.ts';
import { HUBSPOT_PROFILE } from './profile.ts';
import { type PageCursor, readPages } from './search.ts';

const AUDIT = HUBSPOT_PROFILE.auditLogs;

/** Also the read's query parameters. */
type AuditCursor = PageCursor & { q: Array<[string, string]> };

/** HubSpot's query parameters for a filter (`actingUserId` repeated, one per user). */
function queryOf(filter: AuditLogFilter): Array<[string, string]> {
  const q: Array<[string, string]> = [];
  if (filter.occurredAfter !== undefined) q.push(['occurredAfter', filter.occurredAfter]);
  if (filter.occurredBefore !== undefined) q.push(['occurredBefore', filter.occurredBefore]);
  for (const id of filter.actingUserIds ?? []) q.push(['actingUserId', String(id)]);
  if (filter.newestFirst === true) q.push(['sort', '-occurredAt']);
  return q;
}

/** 403 MISSING_SCOPES: the connection was authorised without the scope. */
function failure(response: OutboundResponse): Error {
  const body = parseJson<{ category?: string }>(response);
  if (response.status === 403 && body?.category === 'MISSING_SCOPES') {
    return new ApiError(
      'crm_scope_missing',
      `HubSpot refused: this connection was not granted the scope ${AUDIT.scope}, which audit_logs needs (HubSpot offers audit logs on Enterprise accounts). The operator connects the account again (Reconnect in the console, or a connect link) and grants it.`,
      {
        details: [
          { provider: 'hubspot', status: 403, required_scopes: [AUDIT.scope], crm_error: body ?? null },
        ],
      },
    );
  }
  return crmErrorFromResponse('hubspot', response, 'reading the audit log');
}

/** The account activity API (Enterprise accounts), paged up to `limit` entries per answer. */
export function hubspotAuditLogs(hs: PerConnectionState, key: Buffer): Handler<'audit_logs'> {
  async function run(api: HubSpotApi, cursor: AuditCursor): Promise<AuditLogPage> {
    const { records, done, next_cursor } = await readPages(key, cursor, AUDIT, async (after, limit) => {
      const params = new URLSearchParams([...cursor.q, ['limit', String(limit)]]);
      if (after !== '') params.set('after', after);
      const response = await api.send({
        method: 'GET',
        path: `${AUDIT.path}?${params.toString()}`,
        idempotent: true,
        label: 'hubspot.account_info.audit_logs',
      });
      if (response.status !== 200) throw failure(response);
      return parseJson(response) ?? {};
    });
    return { records, done, next_cursor };
  }

  return async (call, input) => {
    const api = hs.at(call);
    if ('cursor' in input) return run(api, verifyCursor(key, input.cursor, call.session.connectionId));
    return run(api, {
      c: call.session.connectionId,
      q: queryOf(input.filter),
      a: '',
      n: input.filter.limit ?? AUDIT.defaultPerAnswer,
    });
  };
}
