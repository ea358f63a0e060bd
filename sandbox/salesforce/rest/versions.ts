import type { FastifyInstance } from 'fastify';
import type { SalesforceContext } from '../context.ts';
import { identityUrl } from '../oauth/context.ts';
import { DATA_PREFIX, MAX_VERSION, MIN_VERSION, sendJson, versionOf } from './common.ts';
import { userOf } from './sobjects.ts';

const SEASONS = ['Winter', 'Spring', 'Summer'] as const;

/** Release name of an API version: v20.0 was Winter '11, then three releases a year. */
export function versionLabel(n: number): string {
  const i = n - MIN_VERSION;
  const season = SEASONS[i % 3] as string;
  const year = 11 + Math.floor(i / 3);
  return `${season} '${String(year).padStart(2, '0')}`;
}

export function versionsList(): Array<{ label: string; url: string; version: string }> {
  const out = [];
  for (let n = MIN_VERSION; n <= MAX_VERSION; n++) {
    out.push({ label: versionLabel(n), url: `${DATA_PREFIX}/v${n}.0`, version: `${n}.0` });
  }
  return out;
}

/**
 * The resources of `GET /services/data/vXX.X`: exactly what the sandbox serves (each answers a GET:
 * a directory, a list, or the resource's own "missing parameter" error). Salesforce also lists
 * analytics, connect, chatter, actions, ui-api and more; the sandbox does not emulate those, so it
 * does not claim them. `identity` is added per request (an absolute URL).
 */
export const RESOURCES = [
  'tooling',
  'jobs',
  'composite',
  'query',
  'queryAll',
  'recent',
  'search',
  'parameterizedSearch',
  'sobjects',
  'limits',
  'process',
  'tabs',
  'theme',
];

export function registerVersionRoutes(app: FastifyInstance, ctx: SalesforceContext): void {
  for (const url of [DATA_PREFIX, `${DATA_PREFIX}/`]) {
    app.get(url, { config: { kind: 'rest.versions' } }, async (_req, reply) =>
      sendJson(reply, 200, versionsList()),
    );
  }
  for (const url of [`${DATA_PREFIX}/:version`, `${DATA_PREFIX}/:version/`]) {
    app.get(url, { config: { kind: 'rest.resources' } }, async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const body: Record<string, string> = {};
      for (const r of RESOURCES) body[r] = `${DATA_PREFIX}/v${version}/${r}`;
      // Absolute, like Salesforce's: the identity service lives on the login host.
      body.identity = identityUrl(request, ctx.org.orgId, userOf(ctx, request));
      return sendJson(reply, 200, body);
    });
  }
}
