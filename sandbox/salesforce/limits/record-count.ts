import type { FastifyInstance } from 'fastify';
import type { SalesforceContext } from '../context.ts';
import { sendErrors, sendJson, versionOf } from '../rest/common.ts';

/**
 * `GET /limits/recordCount[?sObjects=Account,Contact]`: `{"sObjects": [{"count", "name"}]}`, every
 * queryable object with records (or each one asked for, 0 included) by name. Salesforce's counts
 * lag; the sandbox's are exact (live rows, the recycle bin left out).
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_record_count.htm
 */
export function registerRecordCount(app: FastifyInstance, ctx: SalesforceContext): void {
  app.get<{ Params: { version: string }; Querystring: { sObjects?: string } }>(
    '/services/data/:version/limits/recordCount',
    { config: { kind: 'rest.limits.recordCount' } },
    async (request, reply) => {
      if (versionOf(request, reply) === null) return reply;
      const asked = (request.query.sObjects ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      const metas = asked.map((name) => ctx.org.object(name));
      const unknown = asked.filter((_, i) => metas[i] === undefined);
      if (unknown.length > 0) {
        return sendErrors(reply, 400, [
          { errorCode: 'INVALID_TYPE', message: `sObject type '${unknown.join(', ')}' is not supported.` },
        ]);
      }
      const all =
        asked.length > 0 ? metas.flatMap((m) => (m === undefined ? [] : [m])) : ctx.org.schema.all();
      const counted = all
        .map((meta) => {
          let count = 0;
          for (const rec of ctx.org.table(meta).rows.values()) if (rec.IsDeleted !== true) count += 1;
          return { count, name: meta.name };
        })
        .filter((c) => asked.length > 0 || c.count > 0)
        .sort((a, b) => a.name.localeCompare(b.name));
      return sendJson(reply, 200, { sObjects: counted });
    },
  );
}
