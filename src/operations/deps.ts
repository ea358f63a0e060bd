import type { TokenManager } from '../connections/token-manager.ts';
import { ConcurrencyLimiter } from '../lib/limiter.ts';
import type { HttpClient } from '../providers/client/http-client.ts';
import type { ProviderRegistry } from '../providers/registry.ts';

/** What operations need, wired once by createContext. */
export interface OperationDeps {
  registry: ProviderRegistry;
  tokens: TokenManager;
  client: HttpClient;
  limiters: ConnectionLimiters;
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
