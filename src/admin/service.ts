// The operator's view of the service, shared by the console and the admin API.
import type { AuthService } from '../auth/service.ts';
import type { ConnectionService } from '../connections/service.ts';
import type { ConnectPort } from '../domain/connect.ts';
import type { Connection, TokenRecord } from '../domain/connection.ts';
import { ApiError } from '../errors/index.ts';
import type { ConnectionStats, RequestLogEntry, Store } from '../store/types.ts';
import type { RequestLog } from './request-log.ts';

export type { Operator, OperatorSession, RequestLogEntry } from '../store/types.ts';

export interface ConnectionView
  extends Pick<Connection, 'id' | 'provider' | 'label' | 'region' | 'sandbox' | 'createdAt'> {
  providerName: string;
  status: 'active' | 'needs_reauth' | 'failing';
  lastError: string | null;
  lastErrorAt: string | null;
  lastUsedAt: string | null;
  /** The daily API allowance as the CRM's last answers said. */
  allowance: { used: number; limit: number; left: number; at: string } | null;
}

export interface TokenView extends TokenRecord {
  state: 'active' | 'revoked' | 'expired';
}

export interface UsageSeries {
  connectionId: string | null;
  hours: string[];
  requests: number[];
  errors: number[];
}

export interface AdminDeps {
  store: Store;
  connections: ConnectionService;
  auth: AuthService;
  requestLog: RequestLog;
  now: () => number;
  displayName: (provider: string) => string;
  connect: ConnectPort;
}

export type RequestsQuery = Partial<
  Record<'status_class' | 'connection_id' | 'token_id' | 'request_id' | 'before', string> & { limit: number }
>;

export const STATUS_CLASSES = [2, 3, 4, 5] as const;

function health(
  c: Connection,
  s: ConnectionStats | undefined,
): Pick<ConnectionView, 'status' | 'lastError' | 'lastErrorAt'> {
  if (c.status === 'needs_reauth')
    return { status: 'needs_reauth', lastError: c.statusReason, lastErrorAt: c.updatedAt };
  const failing = s?.lastErrorAt != null && (s.lastSuccessAt === null || s.lastErrorAt >= s.lastSuccessAt);
  return {
    status: failing ? 'failing' : 'active',
    lastError: s?.lastError ?? null,
    lastErrorAt: s?.lastErrorAt ?? null,
  };
}

export class AdminService {
  readonly #d: AdminDeps;
  readonly connect: ConnectPort;

  constructor(deps: AdminDeps) {
    this.#d = deps;
    this.connect = deps.connect;
  }

  /** With account ids, for the console's same-account badge. */
  connectionRecords(): Promise<Connection[]> {
    return this.#d.connections.list();
  }

  async listConnections(): Promise<ConnectionView[]> {
    await this.#d.requestLog.flush();
    const [connections, stats] = await Promise.all([
      this.#d.connections.list(),
      this.#d.store.requestLog.stats(),
    ]);
    const byId = new Map(stats.map((s) => [s.connectionId, s]));
    return connections.map((c) => this.#view(c, byId.get(c.id)));
  }

  async getConnection(id: string): Promise<ConnectionView> {
    const found = (await this.listConnections()).find((c) => c.id === id);
    if (!found) throw notFound('connection', id);
    return found;
  }

  #view(c: Connection, s: ConnectionStats | undefined): ConnectionView {
    return {
      id: c.id,
      provider: c.provider,
      providerName: this.#d.displayName(c.provider),
      label: c.label,
      region: c.region,
      sandbox: c.sandbox,
      ...health(c, s),
      createdAt: c.createdAt,
      lastUsedAt: s?.lastUsedAt ?? null,
      allowance:
        s?.allowance == null
          ? null
          : { ...s.allowance, left: Math.max(0, s.allowance.limit - s.allowance.used) },
    };
  }

  async removeConnection(id: string): Promise<void> {
    if (!(await this.#d.connections.remove(id))) throw notFound('connection', id);
  }

  async listTokens(connectionId?: string): Promise<TokenView[]> {
    if (connectionId !== undefined) await this.getConnection(connectionId);
    const now = new Date(this.#d.now()).toISOString();
    return (await this.#d.auth.list(connectionId)).map((t) => ({
      ...t,
      state: t.revokedAt ? 'revoked' : t.expiresAt && t.expiresAt <= now ? 'expired' : 'active',
    }));
  }

  /** The secret is in the answer only. */
  async createToken(input: {
    connectionId: string;
    name: string | null;
    expiresInDays: number | null;
  }): Promise<{ token: string; record: TokenRecord }> {
    if (
      input.expiresInDays !== null &&
      !(Number.isInteger(input.expiresInDays) && input.expiresInDays >= 1 && input.expiresInDays <= 3650)
    ) {
      throw new ApiError(
        'invalid_value',
        'expires_in_days must be a whole number of days from 1 to 3650, or absent for no expiry.',
        { details: [{ field: 'expires_in_days' }] },
      );
    }
    const result = await this.#d.auth.createToken({
      connectionId: input.connectionId,
      name: input.name,
      expiresAt:
        input.expiresInDays === null ? null : new Date(this.#d.now() + input.expiresInDays * 86400_000),
    });
    if (!result.ok) throw notFound('connection', input.connectionId);
    return { token: result.token, record: result.record };
  }

  async revokeToken(id: string): Promise<TokenRecord> {
    if (!id.startsWith('tok_')) throw notFound('token', id);
    const result = await this.#d.auth.revoke(id);
    if (result.ok) return result.record;
    if (result.code === 'already_revoked') {
      const record = (await this.#d.auth.list()).find((t) => t.id === id);
      if (record) return record;
    }
    throw notFound('token', id);
  }

  /** The newest matching entries (absent or '' is "any"), 100 unless `limit` says, at most 1,000. */
  requests(q: RequestsQuery): Promise<RequestLogEntry[]> {
    return this.#d.requestLog.query({
      statusClass: q.status_class ? Number(q.status_class[0]) : undefined,
      connectionId: q.connection_id || undefined,
      tokenId: q.token_id || undefined,
      requestId: q.request_id || undefined,
      before: q.before || undefined,
      limit: Math.min(q.limit ?? 100, 1000),
    });
  }

  /** Requests and errors per hour and connection, oldest first; `seeded` ones even without any. */
  async usage(
    hours = 168,
    connectionId?: string,
    seeded = connectionId === undefined ? [] : [connectionId],
  ): Promise<UsageSeries[]> {
    const { hours: labels, buckets } = await this.#d.requestLog.usage(hours, connectionId);
    const index = new Map(labels.map((h, i) => [h, i]));
    const series = new Map<string | null, UsageSeries>();
    const of = (id: string | null): UsageSeries => {
      let s = series.get(id);
      if (s === undefined) {
        s = { connectionId: id, hours: labels, requests: labels.map(() => 0), errors: labels.map(() => 0) };
        series.set(id, s);
      }
      return s;
    };
    for (const id of seeded) of(id);
    for (const b of buckets) {
      const i = index.get(b.hour);
      if (i === undefined) continue;
      const s = of(b.connectionId);
      s.requests[i] = b.requests;
      s.errors[i] = b.errors;
    }
    return [...series.values()];
  }
}

function notFound(what: string, id: string): ApiError {
  return new ApiError('not_found', `No ${what} ${id.slice(0, 80)} here.`);
}
