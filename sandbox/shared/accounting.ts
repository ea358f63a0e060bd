/**
 * Call accounting: how many calls of each kind a sandbox served, so tests and benchmarks can
 * assert what an operation cost in CRM API calls. Kinds are dotted names such as
 * `rest.query`, `collections.create`, `bulk2.upload`, `oauth.token.refresh`.
 */
export interface CallSnapshot {
  total: number;
  byKind: Record<string, number>;
}

export class CallAccounting {
  #byKind = new Map<string, number>();
  #total = 0;

  record(kind: string): void {
    this.#total += 1;
    this.#byKind.set(kind, (this.#byKind.get(kind) ?? 0) + 1);
  }

  /** Calls of one kind, or of every kind that starts with `prefix.` when given a prefix. */
  count(kindOrPrefix: string): number {
    let n = 0;
    for (const [kind, c] of this.#byKind) {
      if (kind === kindOrPrefix || kind.startsWith(`${kindOrPrefix}.`)) n += c;
    }
    return n;
  }

  snapshot(): CallSnapshot {
    return { total: this.#total, byKind: Object.fromEntries([...this.#byKind].sort()) };
  }

  reset(): void {
    this.#byKind.clear();
    this.#total = 0;
  }
}
