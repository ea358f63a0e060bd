import jsforce, { type Connection } from 'jsforce';

/** jsforce on a sandbox with its bootstrap access token, API v62.0. */
export const connectTo = (sf: { url: string; credentials: { accessToken: string } }): Connection =>
  new jsforce.Connection({ instanceUrl: sf.url, accessToken: sf.credentials.accessToken, version: '62.0' });

/**
 * jsforce's `bulk.load` closes its Bulk 1.0 job without waiting for the answer (`batch.on('response',
 * () => job.close())`), so `load()` can resolve while that call is still in flight. A sandbox stopped
 * then resets it, and jsforce's unhandled rejection fails whatever test runs next. `settled()`
 * resolves once every such close has been answered: await it before stopping the sandbox.
 */
export function trackBulkJobCloses(conn: Connection): { settled(): Promise<void> } {
  const closes: Promise<unknown>[] = [];
  const createJob = conn.bulk.createJob.bind(conn.bulk);
  conn.bulk.createJob = ((...args: Parameters<typeof createJob>) => {
    const job = createJob(...args);
    const close = job.close.bind(job);
    job.close = () => {
      const closed = close();
      closes.push(closed.catch(() => undefined));
      return closed;
    };
    return job;
  }) as typeof conn.bulk.createJob;
  return {
    async settled() {
      await Promise.all(closes);
    },
  };
}
