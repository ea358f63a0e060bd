// Lookup cache for verified tokens. Each entry is tagged with the store's change-feed version read
// *before* the lookup that filled it, and is used only while the version has not moved: a revocation or
// connection removal anywhere (this process, the CLI on the same SQLite file, another instance on the
// same PostgreSQL via NOTIFY) therefore takes effect on the next request, not after a TTL.
// The TTL only bounds how stale the non-security fields (e.g. connection status) may get.
import type { Connection, TokenRecord } from '../domain/connection.ts';

export interface CachedToken {
  token: TokenRecord;
  connection: Connection;
  version: string;
  storedAt: number;
}

export class TokenCache {
  readonly #entries = new Map<string, CachedToken>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(hash: string, version: string, nowMs: number): CachedToken | undefined {
    const e = this.#entries.get(hash);
    if (!e) return undefined;
    if (e.version !== version || nowMs - e.storedAt >= this.ttlMs) {
      this.#entries.delete(hash);
      return undefined;
    }
    return e;
  }

  set(hash: string, entry: CachedToken): void {
    this.#entries.delete(hash);
    if (this.#entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: the first key is the oldest entry.
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(hash, entry);
  }

  evictToken(tokenId: string): void {
    for (const [hash, e] of this.#entries) if (e.token.id === tokenId) this.#entries.delete(hash);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
