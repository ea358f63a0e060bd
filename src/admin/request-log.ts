// The request log, written off the request's path in batches on a timer. Readers flush first, so
// this instance's own requests are always visible.
import { randomBase62 } from '../crypto/random.ts';
import { pooledRandomBytes } from '../lib/random-pool.ts';
import type {
  ConnectionStatsUpdate,
  RequestLogEntry,
  RequestLogFilter,
  Store,
  UsageBucket,
} from '../store/types.ts';

export interface RequestLogOptions {
  store: Store;
  now: () => number;
  retentionMs: number;
  /** Default 1 s. */
  flushIntervalMs?: number;
  onError?: (err: unknown) => void;
}

export type NewRequestLogEntry = Omit<RequestLogEntry, 'id'>;

const PRUNE_EVERY_MS = 3600_000;
const MAX_BUFFERED = 500;
/** Entries kept in memory at most while the store fails; older ones are dropped. */
const MAX_PENDING = 50_000;

export class RequestLog {
  readonly #opts: Required<Omit<RequestLogOptions, 'onError'>> & Pick<RequestLogOptions, 'onError'>;
  #buffer: RequestLogEntry[] = [];
  #stats = new Map<string, ConnectionStatsUpdate>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #lastPrune = 0;
  #seq = 0;

  constructor(opts: RequestLogOptions) {
    this.#opts = { flushIntervalMs: 1000, ...opts };
  }

  /** Never waits on the store. */
  record(entry: NewRequestLogEntry, allowance?: { used: number; limit: number }, error?: string): void {
    if (this.#buffer.length >= MAX_PENDING) this.#buffer.shift();
    // Ids sort in arrival order (entries of the same instant stay in order), then random.
    const seq = (this.#seq++ % 1e9).toString(36).padStart(6, '0');
    // Handed over: given its id in place rather than copied.
    const stored = entry as RequestLogEntry;
    stored.id = `rl_${Date.now().toString(36).padStart(9, '0')}${seq}${randomBase62(8, pooledRandomBytes)}`;
    this.#buffer.push(stored);
    if (entry.connectionId !== null) {
      let stats = this.#stats.get(entry.connectionId);
      if (stats === undefined) {
        stats = { connectionId: entry.connectionId };
        this.#stats.set(entry.connectionId, stats);
      }
      stats.lastUsedAt = entry.at;
      if (entry.status < 500) stats.lastSuccessAt = entry.at;
      if (error !== undefined) stats.lastError = { message: error, at: entry.at };
      if (allowance !== undefined)
        stats.allowance = { used: allowance.used, limit: allowance.limit, at: entry.at };
    }
    if (this.#buffer.length >= MAX_BUFFERED) void this.flush();
    else this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#opts.flushIntervalMs);
    this.#timer.unref();
  }

  /** Never throws. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#write());
    return this.#flushing;
  }

  async #write(): Promise<void> {
    const entries = this.#buffer;
    const stats = [...this.#stats.values()];
    this.#buffer = [];
    this.#stats = new Map();
    try {
      if (entries.length > 0) await this.#opts.store.requestLog.insertMany(entries);
      if (stats.length > 0) await this.#opts.store.requestLog.updateStats(stats);
      const now = this.#opts.now();
      if (now - this.#lastPrune >= PRUNE_EVERY_MS) {
        this.#lastPrune = now;
        await this.prune();
      }
    } catch (err) {
      // The next flush tries again.
      this.#buffer = [...entries, ...this.#buffer].slice(-MAX_PENDING);
      for (const s of stats) if (!this.#stats.has(s.connectionId)) this.#stats.set(s.connectionId, s);
      this.#opts.onError?.(err);
      this.#schedule();
    }
  }

  prune(): Promise<number> {
    return this.#opts.store.requestLog.prune(
      new Date(this.#opts.now() - this.#opts.retentionMs).toISOString(),
    );
  }

  async query(filter: RequestLogFilter): Promise<RequestLogEntry[]> {
    await this.flush();
    return this.#opts.store.requestLog.query(filter);
  }

  async usage(hours: number, connectionId?: string): Promise<{ hours: string[]; buckets: UsageBucket[] }> {
    await this.flush();
    const end = Math.floor(this.#opts.now() / 3600_000) * 3600_000;
    const start = end - (hours - 1) * 3600_000;
    const labels = Array.from({ length: hours }, (_, i) =>
      new Date(start + i * 3600_000).toISOString().slice(0, 13),
    );
    const buckets = await this.#opts.store.requestLog.usage(new Date(start).toISOString(), connectionId);
    return { hours: labels, buckets };
  }

  async close(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }
}
