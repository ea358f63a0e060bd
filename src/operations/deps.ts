import type { TokenManager } from '../connections/token-manager.ts';
import type { Connection } from '../domain/connection.ts';
import { ConcurrencyLimiter } from '../lib/limiter.ts';
import type {
  CrmAdapter,
  Handler,
  JobHook,
  OperationAnswers,
  OperationInputs,
} from '../providers/adapter.ts';
import type { HttpClient } from '../providers/client/http-client.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { ProxyForwarder } from '../proxy/forwarder.ts';
import { translatingCrmErrors } from './checks.ts';
import { openSession } from './session.ts';

/** What operations need, wired once by createContext. */
export interface OperationDeps {
  registry: ProviderRegistry;
  tokens: TokenManager;
  client: HttpClient;
  limiters: ConnectionLimiters;
  /** Streams pass-through requests to the CRM. */
  forwarder: ProxyForwarder;
}

/**
 * One concurrency limiter per connection: a 10,000-id get fans out into parallel CRM calls, and
 * this cap keeps one busy client from monopolising the CRM account (and its API allowance).
 */
export class ConnectionLimiters {
  readonly #perConnection: number;
  readonly #limiters = new Map<string, ConcurrencyLimiter>();

  constructor(perConnection: number) {
    this.#perConnection = perConnection;
  }

  for(connectionId: string): ConcurrencyLimiter {
    let limiter = this.#limiters.get(connectionId);
    if (limiter === undefined) {
      limiter = new ConcurrencyLimiter(this.#perConnection);
      this.#limiters.set(connectionId, limiter);
    }
    return limiter;
  }
}

/** Runs a handler on the connection: an authorised session, the connection's cap, CRM errors translated. */
export function runHandler<O extends keyof OperationInputs>(
  deps: OperationDeps,
  adapter: CrmAdapter,
  connection: Connection,
  handler: Handler<O>,
  input: OperationInputs[O],
  job?: JobHook,
): Promise<OperationAnswers[O]> {
  return translatingCrmErrors(adapter, () =>
    handler(
      { session: openSession(deps, adapter, connection), limiter: deps.limiters.for(connection.id), job },
      input,
    ),
  );
}
