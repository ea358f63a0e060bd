import { PassThrough, type Readable } from 'node:stream';
import { type ReplayBudget, ReplayCopy } from './replay-copy.ts';

/** Bodies up to this size are kept while they stream, so a CRM 401 can be answered by a replay. */
export const DEFAULT_REPLAY_LIMIT = 4 * 1024 * 1024;

/** Where a body's copy for a replay comes from; null: keep none (no replay will be tried). */
export interface ReplayKeeping {
  budget: ReplayBudget;
  /** Largest body copied (default 4 MiB). */
  limit?: number;
}

/**
 * A pass-through's request body, streamed to the CRM. A copy up to `limit` bytes (from the budget until
 * `release()`) lets a CRM 401 be answered by a replay; larger bodies rely on refreshing ahead of expiry.
 */
export class ProxyBody {
  readonly #source: Readable | undefined;
  readonly #forward: PassThrough | undefined;
  #kept: ReplayCopy | null = null;
  #forwarding = true;
  #ended: Promise<void> | undefined;
  #sourceError: Error | undefined;

  constructor(
    source: Readable | undefined,
    declaredLength: number | undefined,
    keeping: ReplayKeeping | null,
  ) {
    this.#source = source;
    if (source === undefined) return;
    const limit = keeping?.limit ?? DEFAULT_REPLAY_LIMIT;
    // Declared larger than the limit: never replayable, nothing kept.
    if (keeping !== null && (declaredLength === undefined || declaredLength <= limit))
      this.#kept = new ReplayCopy(keeping.budget);
    // A stream of our own: an upload the CRM stopped reading ends without touching the client's socket.
    const forward = new PassThrough();
    this.#forward = forward;
    this.#ended = new Promise<void>((resolve, reject) => {
      source.on('end', () => {
        if (this.#forwarding) forward.end();
        resolve();
      });
      source.on('error', (error) => {
        this.#sourceError = error;
        forward.destroy(error);
        reject(error);
      });
      source.on('close', () => {
        if (!source.readableEnded) reject(new Error('request body aborted'));
      });
    });
    this.#ended.catch(() => undefined);
    source.on('data', (chunk: Buffer) => {
      const kept = this.#kept;
      if (kept !== null) {
        // Over the limit, or the instance's budget is spent: not replayable.
        if (kept.length + chunk.length > limit || !kept.add(chunk)) this.release();
      }
      if (this.#forwarding && !forward.write(chunk)) source.pause();
    });
    forward.on('drain', () => source.resume());
  }

  get stream(): Readable | undefined {
    return this.#forward;
  }

  /** The CRM reads no more: end the upload and drain the client's body, so both connections can be reused. */
  abandon(): void {
    this.release();
    if (this.#source === undefined || this.#source.readableEnded || !this.#forwarding) return;
    this.#forwarding = false;
    this.#forward?.destroy();
    this.#source.resume();
  }

  /** True when the client's own body failed (aborted upload), as opposed to the CRM failing. */
  get failed(): boolean {
    return (
      this.#sourceError !== undefined || (this.#source?.destroyed === true && !this.#source.readableEnded)
    );
  }

  /** No replay will be needed (an answer came, or the request is over): give the copy back. Idempotent. */
  release(): void {
    this.#kept?.release();
    this.#kept = null;
  }

  /** The whole body again for a second attempt; `undefined` without a body, `null` when not kept or failed. */
  async replay(): Promise<Buffer | undefined | null> {
    if (this.#source === undefined) return undefined;
    if (this.#kept === null || this.#ended === undefined) return null;
    this.#forwarding = false;
    // The CRM answered before reading it all: end that upload, read the rest here.
    if (!this.#source.readableEnded) this.#forward?.destroy();
    this.#source.resume();
    try {
      await this.#ended;
    } catch {
      return null;
    }
    const kept = this.#kept as ReplayCopy | null;
    if (kept === null) return null;
    const bytes = kept.bytes();
    this.release();
    return bytes;
  }
}
