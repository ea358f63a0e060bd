import type { TokenManager } from '../connections/token-manager.ts';
import type { Connection } from '../domain/connection.ts';
import { ConcurrencyLimiter, type SharedPlaces } from '../lib/limiter.ts';
import { PLACES_FREED } from '../lib/shared-state.ts';
import type {
  CrmAdapter,
  CrmSession,
  JobHook,
  OperationAnswers,
  OperationInputs,
} from '../providers/adapter.ts';
import type { HttpClient } from '../providers/client/http-client.ts';
import { CrmError } from '../providers/errors.ts';
import { bearer } from '../providers/oauth.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { ProxyForwarder } from '../proxy/forwarder.ts';
import type { ReplayBudget } from '../proxy/replay-copy.ts';
import { ensureObjectName, handlerFor, translatingCrmErrors } from './checks.ts';

/** What operations need, wired once by createContext. */
export interface OperationDeps {
  registry: ProviderRegistry;
  tokens: TokenManager;
  client: HttpClient;
  limiters: ConnectionLimiters;
  /** Streams pass-through requests to the CRM. */
  forwarder: ProxyForwarder;
  /** When a pass-through body is copied for a replay after a CRM 401. */
  replay: ReplayPolicy;
}

export interface ReplayPolicy {
  /** Bytes all copies of this instance may hold at once. */
  budget: ReplayBudget;
  /** No copy while the CRM accepted the connection's token less than this long ago; 0: always copy. */
  skipWindowMs: number;
}

/**
 * One concurrency limiter per connection: a 10,000-id get fans out into parallel CRM calls, and
 * this cap keeps one busy client from monopolising the CRM account (and its API allowance), and
 * keeps a connection under the CRM's own cap on concurrent long requests. With a shared state
 * (Redis) the cap holds for all instances together.
 */
export class ConnectionLimiters {
  readonly #perConnection: number;
  readonly #limiters = new Map<string, ConcurrencyLimiter>();
  readonly #shared: SharedLimits | undefined;

  constructor(perConnection: number, shared?: SharedLimits) {
    this.#perConnection = perConnection;
    this.#shared = shared?.state.mode() === 'local' ? undefined : shared;
    // A place freed anywhere (null: notices may have been missed): that connection's waiters try again.
    this.#shared?.state.subscribe(PLACES_FREED, (key) => {
      for (const [id, limiter] of this.#limiters)
        if (key === null || key === placeKey(id)) limiter.placeFreed();
    });
  }

  for(connectionId: string): ConcurrencyLimiter {
    let limiter = this.#limiters.get(connectionId);
    if (limiter === undefined) {
      limiter = new ConcurrencyLimiter(
        this.#perConnection,
        this.#shared === undefined ? undefined : { ...this.#shared, key: placeKey(connectionId) },
      );
      this.#limiters.set(connectionId, limiter);
    }
    return limiter;
  }
}

/**
 * The shared places of every connection; each connection's limiter adds its key. A CRM call's place
 * lease is renewed while the call runs, so a killed instance's place is free `leaseMs` after its
 * last renewal (not after the longest call's deadline).
 */
type SharedLimits = Omit<SharedPlaces, 'key'>;

const placeKey = (connectionId: string) => `connection:${connectionId}`;

/**
 * Runs `operation` on the connection's CRM: 422 when the CRM does not offer it (`all`: every
 * adapter, so the answer names the CRMs that do), then the input's object names (`objectName`,
 * `to`) against the CRM's pattern (they reach URLs) and `check` of the rest against its profile,
 * then the handler in an authorised session under the connection's cap, CRM errors translated.
 */
export async function runOperation<O extends keyof OperationInputs>(
  deps: OperationDeps,
  connection: Connection,
  operation: O,
  input: OperationInputs[O],
  options: { check?: (adapter: CrmAdapter) => void; job?: JobHook | undefined; all?: boolean } = {},
): Promise<OperationAnswers[O]> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, operation, options.all === true ? deps.registry.list() : undefined);
  const { objectName, to } = input as { objectName?: unknown; to?: unknown };
  if (typeof objectName === 'string') ensureObjectName(adapter, objectName);
  if (typeof to === 'string') ensureObjectName(adapter, to);
  options.check?.(adapter);
  return translatingCrmErrors(adapter, () =>
    handler(
      {
        session: openSession(deps, adapter, connection),
        limiter: deps.limiters.for(connection.id),
        job: options.job,
      },
      input,
    ),
  );
}

/**
 * A session on one connection: every call carries the current access token; a CRM 401 triggers
 * one refresh (shared with every concurrent caller) and one resend.
 */
function openSession(
  deps: Pick<OperationDeps, 'tokens' | 'client'>,
  adapter: CrmAdapter,
  connection: Connection,
): CrmSession {
  return {
    connectionId: connection.id,
    baseUrl: adapter.defaultApiBaseUrl(connection),
    async send(request) {
      const sendWith = (token: string) =>
        deps.client.send({ ...request, headers: bearer(request.headers ?? {}, token) });
      const token = await deps.tokens.accessToken(connection);
      const first = await sendWith(token);
      if (!adapter.auth.isExpiredToken(first)) {
        if (first.status !== 401) deps.tokens.accepted(connection.id, token);
        return first;
      }
      const fresh = await deps.tokens.refreshAfterRejected(connection, token);
      const second = await sendWith(fresh);
      if (adapter.auth.isExpiredToken(second)) {
        throw new CrmError(
          connection.provider,
          'auth_rejected',
          'the CRM rejected a freshly refreshed access token',
          {
            status: second.status,
            crmBody: second.text.slice(0, 500),
          },
        );
      }
      if (second.status !== 401) deps.tokens.accepted(connection.id, fresh);
      return second;
    },
  };
}
