import type { FastifyInstance } from 'fastify';
import type { SalesforceContext } from '../context.ts';
import { DATA_PREFIX, sendJson, versionOf } from './common.ts';

/**
 * The directory resources (`jobs`, `composite`, `tooling`: what lies under them) and the org's
 * navigation (`tabs`, `theme`), generated from the objects the org has.
 */
export function registerDirectoryRoutes(app: FastifyInstance, ctx: SalesforceContext): void {
  const dirs: Record<string, string[]> = {
    jobs: ['ingest', 'query'],
    composite: ['batch', 'graph', 'sobjects', 'tree'],
    tooling: ['sobjects', 'query'],
  };
  for (const [name, children] of Object.entries(dirs)) {
    app.get(
      `${DATA_PREFIX}/:version/${name}`,
      { config: { kind: `rest.${name}` } },
      async (request, reply) => {
        const version = versionOf(request, reply);
        if (version === null) return reply;
        const body: Record<string, string> = {};
        for (const c of children) body[c] = `${DATA_PREFIX}/v${version}/${name}/${c}`;
        return sendJson(reply, 200, body);
      },
    );
  }

  const tabbed = () =>
    ctx.org.schema.all().filter((m) => m.describe.queryable && m.describe.layoutable && m.keyPrefix !== '');

  app.get(`${DATA_PREFIX}/:version/tabs`, { config: { kind: 'rest.tabs' } }, async (request, reply) => {
    const version = versionOf(request, reply);
    if (version === null) return reply;
    const base = ctx.baseUrl();
    return sendJson(
      reply,
      200,
      tabbed().map((m) => ({
        colors: [{ color: '7F8DE1', context: 'primary', theme: 'theme4' }],
        custom: m.describe.custom,
        iconUrl: `${base}/img/icon/${m.name.toLowerCase()}32.png`,
        icons: [
          {
            contentType: 'image/png',
            height: 32,
            theme: 'theme3',
            url: `${base}/img/icon/${m.name.toLowerCase()}32.png`,
            width: 32,
          },
        ],
        label: m.describe.labelPlural,
        miniIconUrl: `${base}/img/icon/${m.name.toLowerCase()}16.png`,
        name: m.describe.custom ? m.name : `standard-${m.name}`,
        sobjectName: m.name,
        url: `${base}/${m.keyPrefix}/o`,
      })),
    );
  });

  app.get(`${DATA_PREFIX}/:version/theme`, { config: { kind: 'rest.theme' } }, async (request, reply) => {
    const version = versionOf(request, reply);
    if (version === null) return reply;
    const base = ctx.baseUrl();
    return sendJson(reply, 200, {
      themeItems: tabbed().map((m) => ({
        colors: [{ color: '7F8DE1', context: 'primary', theme: 'theme4' }],
        icons: [
          {
            contentType: 'image/png',
            height: 32,
            theme: 'theme3',
            url: `${base}/img/icon/${m.name.toLowerCase()}32.png`,
            width: 32,
          },
          {
            contentType: 'image/svg+xml',
            height: 0,
            theme: 'theme4',
            url: `${base}/img/icon/t4v35/standard/${m.name.toLowerCase()}.svg`,
            width: 0,
          },
        ],
        name: m.name,
      })),
    });
  });
}
