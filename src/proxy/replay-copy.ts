/** Copies of pass-through bodies for a replay: held socket chunks would pin their whole buffers. */
export const SEGMENT_BYTES = 64 * 1024;

/** The bytes all replay copies of one instance may hold at once; when spent, a body cannot be replayed. */
export class ReplayBudget {
  readonly totalBytes: number;
  #used = 0;

  constructor(totalBytes: number) {
    this.totalBytes = totalBytes;
  }

  /** Reserves `bytes`; false, and nothing reserved, when fewer are left. */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.totalBytes) return false;
    this.#used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#used -= bytes;
  }

  get used(): number {
    return this.#used;
  }
}

/** One body's copy, in 64 KiB segments of its own; every allocated byte is reserved from the budget first. */
export class ReplayCopy {
  readonly #budget: ReplayBudget;
  #segments: Buffer[] = [];
  /** Used bytes of the last segment. */
  #fill = 0;
  #bytes = 0;
  #reserved = 0;

  constructor(budget: ReplayBudget) {
    this.#budget = budget;
  }

  get length(): number {
    return this.#bytes;
  }

  /** Copies `chunk`; false when the budget cannot take it: drop the copy. */
  add(chunk: Buffer): boolean {
    let at = 0;
    while (at < chunk.length) {
      const last = this.#segments[this.#segments.length - 1];
      if (last === undefined || this.#fill === SEGMENT_BYTES) {
        if (!this.#budget.take(SEGMENT_BYTES)) return false;
        this.#reserved += SEGMENT_BYTES;
        // Outside Node's small-buffer pool: the copy is freed whole when the request ends.
        this.#segments.push(Buffer.allocUnsafeSlow(SEGMENT_BYTES));
        this.#fill = 0;
        continue;
      }
      const n = chunk.copy(last, this.#fill, at);
      this.#fill += n;
      at += n;
    }
    this.#bytes += chunk.length;
    return true;
  }

  bytes(): Buffer {
    const out = Buffer.allocUnsafe(this.#bytes);
    let at = 0;
    const last = this.#segments.length - 1;
    for (let i = 0; i <= last; i += 1) {
      const segment = this.#segments[i] as Buffer;
      at += segment.copy(out, at, 0, i === last ? this.#fill : SEGMENT_BYTES);
    }
    return out;
  }

  /** Gives the reserved bytes back; the copy is empty afterwards. Idempotent. */
  release(): void {
    this.#budget.give(this.#reserved);
    this.#reserved = 0;
    this.#segments = [];
    this.#fill = 0;
    this.#bytes = 0;
  }
}
