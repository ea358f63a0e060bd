/**
 * Admits work by weight, first come first served: a piece of work enters while the weight inside
 * stays within `capacity`, or when nothing is inside (so a piece heavier than the capacity still
 * runs, alone). Those that wait are admitted in arrival order: a light piece does not overtake a
 * heavy one, so the heavy one cannot wait forever.
 */
export class AdmissionQueue {
  readonly #capacity: number;
  #weight = 0;
  #count = 0;
  readonly #waiting: Array<{ weight: number; admit: () => void }> = [];

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  /** True when a piece of `weight` would enter at once. */
  fits(weight: number): boolean {
    return this.#waiting.length === 0 && this.#room(weight);
  }

  /**
   * Waits for entry. Resolves with the function that leaves (call it once, when the work ends), or
   * with undefined when `signal` aborts first (the piece then never entered).
   */
  enter(weight: number, signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (this.fits(weight)) return Promise.resolve(this.#admit(weight));
    if (signal?.aborted === true) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const entry = {
        weight,
        admit: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#admit(weight));
        },
      };
      const onAbort = () => {
        const at = this.#waiting.indexOf(entry);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(undefined);
        // The head may have been waiting behind this one.
        this.#next();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(entry);
    });
  }

  #room(weight: number): boolean {
    return this.#count === 0 || this.#weight + weight <= this.#capacity;
  }

  #admit(weight: number): () => void {
    this.#weight += weight;
    this.#count += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#weight -= weight;
      this.#count -= 1;
      this.#next();
    };
  }

  #next(): void {
    for (
      let head = this.#waiting[0];
      head !== undefined && this.#room(head.weight);
      head = this.#waiting[0]
    ) {
      this.#waiting.shift();
      head.admit();
    }
  }
}
