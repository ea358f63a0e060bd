import type { FastifyInstance, FastifyReply } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, sendHubSpotError, validationBody } from '../errors.ts';
import type { AuditEntry } from '../model/audit-log.ts';

/** The scope HubSpot's account activity API requires (developers.hubspot.com, "Account activity API"). */
export const AUDIT_LOG_SCOPE = 'account-info.security.read';

/**
 * Page sizes: HubSpot documents none for audit-logs (its sibling login and security endpoints cap
 * `limit` at 200), so the sandbox takes theirs and answers a larger one with 200.
 */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 200;

type Query = Record<string, string | string[] | undefined>;

const all = (v: string | string[] | undefined): string[] =>
  v === undefined ? [] : (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(','));
const one = (v: string | string[] | undefined): string | undefined => all(v)[0];

interface AuditQuery {
  users: Set<number>;
  after: number | undefined;
  before: number | undefined;
  descending: boolean;
  limit: number;
  offset: number;
}

/** The query parameters, or the message of HubSpot's 400 naming the first bad one. */
function parse(q: Query): AuditQuery | string {
  const users = all(q['actingUserId']).map((s) => (/^\d+$/.test(s) ? Number(s) : Number.NaN));
  if (users.some((n) => Number.isNaN(n)))
    return `actingUserId must be integers, got ${one(q['actingUserId'])}`;
  const time = (name: string): number | undefined | string => {
    const v = one(q[name]);
    if (v === undefined) return undefined;
    const t = Date.parse(v);
    return Number.isNaN(t) ? `${name} must be a date-time (ISO 8601), got ${v}` : t;
  };
  const after = time('occurredAfter');
  if (typeof after === 'string') return after;
  const before = time('occurredBefore');
  if (typeof before === 'string') return before;
  const limitText = one(q['limit']);
  const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) return `limit must be a positive integer, got ${limitText}`;
  const offsetText = one(q['after']) ?? '0';
  if (!/^\d+$/.test(offsetText)) return `after is not a paging cursor of this endpoint: ${offsetText}`;
  const sort = all(q['sort']);
  const bad = sort.find((s) => s !== 'occurredAt' && s !== '-occurredAt');
  if (bad !== undefined) return `sort can only be occurredAt or -occurredAt, got ${bad}`;
  return {
    users: new Set(users),
    after,
    before,
    descending: sort.includes('-occurredAt'),
    limit: Math.min(limit, MAX_LIMIT),
    offset: Number(offsetText),
  };
}

function select(entries: AuditEntry[], q: AuditQuery): AuditEntry[] {
  const kept = entries.filter((e) => {
    const t = Date.parse(e.occurredAt);
    if (q.users.size > 0 && !q.users.has(e.actingUser.userId)) return false;
    if (q.after !== undefined && t <= q.after) return false;
    return q.before === undefined || t < q.before;
  });
  return q.descending ? kept.reverse() : kept;
}

/** 403 MISSING_SCOPES as HubSpot answers a token without the scope a call needs. */
function missingScopes(reply: FastifyReply): FastifyReply {
  return sendHubSpotError(
    reply,
    403,
    hubspotError({
      message:
        "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.",
      category: 'MISSING_SCOPES',
      errors: [
        {
          message: 'One or more of the following scopes are required.',
          context: { requiredGranularScopes: [AUDIT_LOG_SCOPE] },
        },
      ],
      links: { scopes: 'https://developers.hubspot.com/scopes' },
    }),
  );
}

/**
 * Account activity: the audit log of user actions, oldest first unless `sort=-occurredAt`,
 * filtered by acting users (any of them) and a time range (both bounds exclusive), in pages whose
 * `after` is the position of the next entry.
 */
export function registerAccountInfoRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  app.get<{ Querystring: Query }>(
    '/account-info/v3/activity/audit-logs',
    { config: { kind: 'accountInfo.auditLogs' } },
    async (req, reply) => {
      if (!(req.auth?.scopes ?? []).includes(AUDIT_LOG_SCOPE)) return missingScopes(reply);
      const q = parse(req.query);
      if (typeof q === 'string') return sendHubSpotError(reply, 400, validationBody(q));
      const kept = select(ctx.portal.auditLog.list(), q);
      const results = kept.slice(q.offset, q.offset + q.limit);
      if (q.offset + q.limit >= kept.length) return { results };
      const next = String(q.offset + q.limit);
      const link = new URL(req.url, ctx.baseUrl());
      link.searchParams.set('after', next);
      return { results, paging: { next: { after: next, link: link.toString() } } };
    },
  );
}
