import type { FastifyInstance } from 'fastify';
import type { SalesforceContext } from '../context.ts';
import { DATA_PREFIX, MAX_VERSION, MIN_VERSION, sendJson, versionOf } from './common.ts';

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

const RESOURCES = [
  'tooling',
  'metadata',
  'eclair',
  'folders',
  'prechatForms',
  'jobs',
  'composite',
  'query',
  'queryAll',
  'recent',
  'search',
  'sobjects',
  'limits',
  'analytics',
  'connect',
  'actions',
  'appMenu',
  'chatter',
  'process',
  'quickActions',
  'tabs',
  'theme',
  'parameterizedSearch',
  'support',
  'ui-api',
];

export function registerVersionRoutes(app: FastifyInstance, _ctx: SalesforceContext): void {
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
      return sendJson(reply, 200, body);
    });
  }
}
