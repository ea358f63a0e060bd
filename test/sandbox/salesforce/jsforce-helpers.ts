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

/**
 * The OAuth web server flow without a browser: loads the sandbox's authorize page for `authUrl` and
 * posts its Allow decision, as a user's click would. Returns the redirect's query (`code`, `state`).
 */
export async function consentTo(sfUrl: string, authUrl: string): Promise<URLSearchParams> {
  const page = await fetch(authUrl);
  if (page.status !== 200) throw new Error(`authorize page answered ${page.status}`);
  const form = new URLSearchParams({ ...Object.fromEntries(new URL(authUrl).searchParams), action: 'allow' });
  const decision = await fetch(`${sfUrl}/services/oauth2/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  return new URL(decision.headers.get('location') ?? '').searchParams;
}

/** jsforce with the sandbox's OAuth client and both tokens, so it can refresh an expired session. */
export const connectWithRefresh = (sf: {
  url: string;
  credentials: { clientId: string; clientSecret: string; accessToken: string; refreshToken: string };
}): Connection =>
  new jsforce.Connection({
    oauth2: {
      clientId: sf.credentials.clientId,
      clientSecret: sf.credentials.clientSecret,
      loginUrl: sf.url,
    },
    instanceUrl: sf.url,
    accessToken: sf.credentials.accessToken,
    refreshToken: sf.credentials.refreshToken,
    version: '62.0',
  });
