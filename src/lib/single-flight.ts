/**
 * Collapses concurrent calls with the same key into one: callers that arrive while a call is in
 * flight share its promise. The entry is dropped when the call settles, so a later call starts afresh.
 */
export class SingleFlight<T> {
  readonly #inFlight = new Map<string, Promise<T>>();

  run(key: string, fn: () => Promise<T>): Promise<T> {
    const running = this.#inFlight.get(key);
    if (running !== undefined) return running;
    const promise = (async () => {
      try {
        return await fn();
      } finally {
        this.#inFlight.delete(key);
      }
    })();
    this.#inFlight.set(key, promise);
    return promise;
  }
}
