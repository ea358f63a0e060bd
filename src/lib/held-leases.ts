/**
 * What this instance holds in shared state (pacing slots, concurrency places), renewed every third
 * of its lease for as long as it is held. Leases stay short: when the instance dies the renewals
 * stop, and its share is free again within one lease instead of after the longest call it might
 * have made.
 */
export class HeldLeases {
  /** key → lease → ids held there with that lease. */
  readonly #held = new Map<string, Map<number, Set<string>>>();
  readonly #renew: (key: string, leaseMs: number, ids: string[]) => Promise<void>;
  #timers = new Map<number, NodeJS.Timeout>();

  constructor(renew: (key: string, leaseMs: number, ids: string[]) => Promise<void>) {
    this.#renew = renew;
  }

  hold(key: string, id: string, leaseMs: number): void {
    let byLease = this.#held.get(key);
    if (byLease === undefined) {
      byLease = new Map();
      this.#held.set(key, byLease);
    }
    let ids = byLease.get(leaseMs);
    if (ids === undefined) {
      ids = new Set();
      byLease.set(leaseMs, ids);
    }
    ids.add(id);
    this.#tick(leaseMs);
  }

  drop(key: string, id: string): void {
    const byLease = this.#held.get(key);
    if (byLease === undefined) return;
    for (const [lease, ids] of byLease) {
      ids.delete(id);
      if (ids.size === 0) byLease.delete(lease);
    }
    if (byLease.size === 0) this.#held.delete(key);
  }

  stop(): void {
    for (const timer of this.#timers.values()) clearInterval(timer);
    this.#timers.clear();
    this.#held.clear();
  }

  /** One timer per lease length, running while anything with that lease is held; it never keeps the process up. */
  #tick(leaseMs: number): void {
    if (this.#timers.has(leaseMs)) return;
    const timer = setInterval(() => void this.#renewAll(leaseMs), Math.max(100, Math.floor(leaseMs / 3)));
    timer.unref();
    this.#timers.set(leaseMs, timer);
  }

  async #renewAll(leaseMs: number): Promise<void> {
    let any = false;
    const work: Promise<void>[] = [];
    for (const [key, byLease] of this.#held) {
      const ids = byLease.get(leaseMs);
      if (ids === undefined || ids.size === 0) continue;
      any = true;
      work.push(this.#renew(key, leaseMs, [...ids]));
    }
    if (!any) {
      clearInterval(this.#timers.get(leaseMs));
      this.#timers.delete(leaseMs);
    }
    await Promise.all(work);
  }
}
