// Lookup cache for verified tokens. Each entry is tagged with the store's change-feed version read
// *before* the lookup that filled it, and is used only while the version has not moved: a revocation or
// connection removal anywhere (this process, the CLI on the same SQLite file, another instance on the
// same PostgreSQL via NOTIFY) therefore takes effect on the next request, not after a TTL.
// The TTL only bounds how stale the non-security fields (e.g. connection status) may get.
import type { Connection, TokenRecord } from '../domain/connection.ts';
import type { Clock } from '../lib/clock.ts';
import { TtlCache } from '../lib/ttl-cache.ts';

export interface CachedToken {
  token: TokenRecord;
  connection: Connection;
  version: string;
  storedAt: number;
}

export class TokenCache {
  readonly #entries: TtlCache<CachedToken>;

  constructor(options: { ttlMs: number; maxEntries: number; clock: Pick<Clock, 'now'> }) {
    this.#entries = new TtlCache({ ttlMs: options.ttlMs, max: options.maxEntries, clock: options.clock });
  }

  /** The entry of a token hash while the store's version is still `version`. */
  get(hash: string, version: string): CachedToken | undefined {
    const e = this.#entries.get(hash);
    if (e === undefined) return undefined;
    if (e.version !== version) {
      this.#entries.delete(hash);
      return undefined;
    }
    return e;
  }

  set(hash: string, entry: CachedToken): void {
    this.#entries.set(hash, entry);
  }

  evictToken(tokenId: string): void {
    this.#entries.deleteWhere((_hash, e) => e.token.id === tokenId);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
