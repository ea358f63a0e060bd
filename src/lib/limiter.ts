/** Runs at most `concurrency` tasks at once; the others wait in arrival order. */
export class ConcurrencyLimiter {
  readonly #concurrency: number;
  #active = 0;
  readonly #queue: Array<() => void> = [];

  constructor(concurrency: number) {
    this.#concurrency = Math.max(1, concurrency);
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#active >= this.#concurrency) {
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    } else {
      this.#active += 1;
    }
    try {
      return await fn();
    } finally {
      const next = this.#queue.shift();
      // The slot passes straight to the next waiter, so `#active` only drops when nobody waits.
      if (next === undefined) this.#active -= 1;
      else next();
    }
  }
}
