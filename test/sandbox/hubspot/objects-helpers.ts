import type { TestContext } from 'node:test';
import { type HubSpotSandbox, startHubSpotSandbox } from '../../../sandbox/hubspot/index.ts';

/**
 * Starts a seeded HubSpot sandbox on port 0 and stops it after the test. Rate limits are off: these
 * tests fire searches faster than HubSpot's 5 per second (the limiter has its own tests).
 */
export async function startHubSpot(
  t: TestContext,
  options: Parameters<typeof startHubSpotSandbox>[0] = {},
): Promise<HubSpotSandbox> {
  const hs = await startHubSpotSandbox({ port: 0, rateLimit: { enabled: false }, ...options });
  t.after(() => hs.close());
  return hs;
}

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: wire answers are inspected field by field in tests
  body: any;
}

/** Plain `fetch` with the sandbox's access token, JSON in and out. */
export async function call(
  hs: HubSpotSandbox,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(`${hs.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${hs.credentials.accessToken}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}
