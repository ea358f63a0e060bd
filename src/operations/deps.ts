import type { TokenManager } from '../connections/token-manager.ts';
import type { Connection } from '../domain/connection.ts';
import { ConcurrencyLimiter, type SharedPlaces } from '../lib/limiter.ts';
import { PLACES_FREED } from '../lib/shared-state.ts';
import type {
  CrmAdapter,
  CrmSession,
  Handler,
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
 * One concurrency cap per connection (for all instances with Redis), so one busy client cannot
 * monopolise the CRM account or exceed the CRM's own cap on concurrent long requests.
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

/** The shared places of every connection; each connection's limiter adds its key. */
type SharedLimits = Omit<SharedPlaces, 'key'>;

const placeKey = (connectionId: string) => `connection:${connectionId}`;

/**
 * Runs `operation` on the connection's CRM: 422 when it is not offered (`all`: name the CRMs that
 * offer it), object names and `check` against the profile, then the handler in an authorised
 * session under the connection's cap.
 */
export async function runOperation<O extends keyof OperationInputs>(
  deps: OperationDeps,
  connection: Connection,
  operation: O,
  input: OperationInputs[O],
  options: { check?: (adapter: CrmAdapter) => void; job?: JobHook | undefined; all?: boolean } = {},
): Promise<OperationAnswers[O]> {
  const adapter = deps.registry.adapterFor(connection);
  const all = options.all === true ? deps.registry.list() : undefined;
  const handler = handlerFor(adapter, operation, all) as unknown as Handler<O>;
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

/** An expired access token is refreshed (shared by concurrent callers) and the call resent once. */
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
        const message = 'the CRM rejected a freshly refreshed access token';
        throw new CrmError(connection.provider, 'auth_rejected', message, {
          status: second.status,
          crmBody: second.text.slice(0, 500),
        });
      }
      if (second.status !== 401) deps.tokens.accepted(connection.id, fresh);
      return second;
    },
  };
}
