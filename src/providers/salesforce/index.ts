import { ApiError } from '../../errors/index.ts';
import type {
  CrmAdapter,
  Handler,
  HandlerCall,
  OperationInputs,
  ProviderDeps,
  ProviderModule,
} from '../adapter.ts';
import { configuredApp, refreshAccessToken } from '../oauth.ts';
import { AllowanceBook, readLimitInfo } from './allowance.ts';
import { salesforceConnect } from './connect.ts';
import { countriesFromDescribe } from './countries.ts';
import { describeGlobal, knownObject } from './describe.ts';
import { addCustomField } from './fields.ts';
import { salesforceGet } from './get.ts';
import { DescribeCache, type Org, type OrgHandler } from './org.ts';
import { SALESFORCE, SALESFORCE_PROFILE } from './profile.ts';
import { query, queryMore } from './query.ts';
import { type SalesforceSettings, salesforceSettings } from './settings.ts';
import { salesforceUpsert } from './upsert.ts';
import { deleteRecords, saveRecords } from './writes.ts';

const PASS = SALESFORCE_PROFILE.passthrough;

/** Salesforce: every operation of the API, on the org's REST, Tooling and Bulk 2.0 APIs. */
function createSalesforceAdapter(deps: ProviderDeps<SalesforceSettings>): CrmAdapter {
  const { settings, clock } = deps;
  const dataPath = SALESFORCE_PROFILE.dataPath(settings.apiVersion);
  const describes = new DescribeCache(settings.describeTtlMs, clock, deps.shared);
  // Every answer of every handler's session updates the org's allowance the write plans read.
  const allowances = new AllowanceBook(clock);
  const orgOf = ({ session: given, limiter, job }: HandlerCall): Org => {
    const session = allowances.observing(given);
    return {
      session,
      limiter,
      job,
      clock,
      api: `${session.baseUrl}${dataPath}`,
      describes,
      cursorKey: deps.signingKey,
      allowances,
      bulkThreshold: settings.bulkThreshold ?? SALESFORCE_PROFILE.defaultBulkThreshold,
      frugalBelow: settings.frugalBelow ?? SALESFORCE_PROFILE.defaultFrugalBelow,
    };
  };
  const on =
    <O extends keyof OperationInputs>(handler: OrgHandler<O>): Handler<O> =>
    (call, input) =>
      handler(orgOf(call), input);
  return {
    profile: SALESFORCE,
    auth: {
      // No expires_in: the lifetime is the org's session timeout, so expiry is found by a 401.
      refresh: (app, refreshToken) =>
        refreshAccessToken(deps.client, clock, SALESFORCE.id, app, refreshToken),
      // As jsforce, no refresh for "not valid for use with the REST API": refreshing cannot fix it.
      isExpiredToken: (response) =>
        response.status === 401 && !response.text.includes('not valid for use with the REST API'),
    },
    connect: salesforceConnect(deps.client, clock, settings),
    // The REST API lives on the org's instance URL; a sandbox connection may override it.
    defaultApiBaseUrl: (c) => c.apiBaseUrl ?? c.instanceUrl ?? SALESFORCE_PROFILE.defaultLoginUrl,
    oauthApp(connection, sandboxClient) {
      const app = sandboxClient ?? configuredApp(settings);
      if (app === null) return null;
      // Refresh works on the login and My Domain hosts alike; connect-flow connections keep their login host.
      const host = connection.apiBaseUrl ?? connection.loginUrl ?? settings.loginUrl;
      return { ...app, tokenUrl: `${host}${SALESFORCE_PROFILE.tokenPath}` };
    },
    readAllowance: readLimitInfo,
    handlers: {
      insert: on<'insert'>((org, input) => saveRecords(org, 'insert', input)),
      update: on<'update'>((org, input) => saveRecords(org, 'update', input)),
      delete: on(deleteRecords),
      upsert: on(salesforceUpsert),
      get: on(salesforceGet),
      query: on<'query'>((org, input) =>
        'soql' in input ? query(org, input.soql) : queryMore(org, input.cursor),
      ),
      describe: on<'describe'>(async (org, { objectName }) =>
        objectName === undefined ? describeGlobal(org) : knownObject(org, objectName),
      ),
      // An org without Account is answered with the ISO list.
      countries: on<'countries'>(async (org) => {
        const account = await knownObject(org, 'Account').catch((error: unknown) => {
          if (error instanceof ApiError && error.code === 'unknown_object') return null;
          throw error;
        });
        return countriesFromDescribe(account);
      }),
      add_custom_field: on(addCustomField),
      passthrough: {
        forwardedHeaders: PASS.forwardedHeaders,
        publicOrigins: (c) => (c.instanceUrl === null ? [] : [c.instanceUrl]),
        tokenHeaders: (path, token): Record<string, string> | undefined =>
          path.startsWith(PASS.bulk1PathPrefix) ? { [PASS.bulk1SessionHeader]: token } : undefined,
      },
    },
  };
}

export const salesforceProvider: ProviderModule<typeof salesforceSettings> = {
  profile: SALESFORCE,
  settings: salesforceSettings,
  create: createSalesforceAdapter,
};
