/** Admits work by weight within `capacity` (alone when heavier), in arrival order so heavy pieces never starve. */
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

  /** Waits for entry: resolves with the function that leaves, or undefined when `signal` aborts first. */
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
    let head = this.#waiting[0];
    while (head !== undefined && this.#room(head.weight)) {
      this.#waiting.shift();
      head.admit();
      head = this.#waiting[0];
    }
  }
}
