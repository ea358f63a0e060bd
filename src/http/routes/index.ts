import { ApiError } from '../../errors/index.ts';
import { authenticate } from '../plugins/auth.ts';
import type { RouteDoc } from '../route-doc.ts';
import { register as connectLink } from './connect.secret.ts';
import { register as oauthCallback } from './oauth.callback.ts';
import type { ApiApp, RegisterRoute, RouteServices } from './types.ts';
import { register as auditLogs } from './v1.audit_logs.ts';
import { register as countries } from './v1.countries.ts';
import { register as describeObject } from './v1.describe.object.ts';
import { register as describe } from './v1.describe.ts';
import { register as jobResults } from './v1.jobs.job_id.results.ts';
import { register as job } from './v1.jobs.job_id.ts';
import { register as jobs } from './v1.jobs.ts';
import { register as addCustomField } from './v1.object.add_custom_field.ts';
import { register as associate } from './v1.object.associate.ts';
import { register as associations } from './v1.object.associations.ts';
import { register as deleteRecords } from './v1.object.delete.ts';
import { register as dissociate } from './v1.object.dissociate.ts';
import { register as get } from './v1.object.get.ts';
import { register as insert } from './v1.object.insert.ts';
import { register as query } from './v1.object.query.ts';
import { register as soql } from './v1.object.soql.ts';
import { register as update } from './v1.object.update.ts';
import { register as upsert } from './v1.object.upsert.ts';
import { register as proxy } from './v1.proxy.ts';

const ROUTES: RegisterRoute[] = [
  insert,
  upsert,
  update,
  deleteRecords,
  get,
  soql,
  query,
  describe,
  describeObject,
  countries,
  addCustomField,
  associations,
  associate,
  dissociate,
  auditLogs,
  proxy,
  jobs,
  job,
  jobResults,
];

/** POST-only paths; a request with another method gets 405 with `Allow: POST` (not 404). */
const POST_PATHS = [
  '/v1/object/insert/:object_name',
  '/v1/object/upsert/:object_name',
  '/v1/object/update/:object_name',
  '/v1/object/delete',
  '/v1/object/delete/:object_name',
  '/v1/object/get/:object_name',
  '/v1/object/soql',
  '/v1/object/query/:object_name',
  '/v1/describe',
  '/v1/describe/:object_name',
  '/v1/countries',
  '/v1/object/add_custom_field/:object_name',
  '/v1/object/associations/:object_name',
  '/v1/object/associate/:object_name',
  '/v1/object/dissociate/:object_name',
  '/v1/audit_logs',
];

export function registerV1Routes(app: ApiApp, ctx: RouteServices): void {
  // Authenticated routes live in their own scope: the token is checked before the body is read.
  app.register(async (scope) => {
    scope.decorateRequest('principal', null);
    scope.addHook('onRequest', authenticate(ctx.auth, ctx.rateLimiter));
    for (const route of ROUTES) route(scope as ApiApp, ctx);
  });
  // The browser connect flow: public pages, proven by the flow's state and cookie or the link's secret.
  oauthCallback(app, ctx);
  connectLink(app, ctx);
  for (const url of POST_PATHS) {
    app.route({
      method: ['GET', 'PUT', 'PATCH', 'DELETE'],
      url,
      config: { doc: { hidden: true } as RouteDoc },
      handler: async (request) => {
        throw new ApiError(
          'method_not_allowed',
          `${request.method} is not allowed on ${url.replace(/:(\w+)/g, '{$1}')}. Use POST.`,
          {
            headers: { allow: 'POST' },
          },
        );
      },
    });
  }
}
