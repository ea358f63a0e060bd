import type { Connection } from '../../domain/connection.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';
import type { CrmAdapter, Handler, OAuthClient, OperationInputs, ProviderDeps } from '../adapter.ts';
import { AllowanceBook } from './allowance.ts';
import { salesforceAuth } from './auth.ts';
import { salesforceConnect } from './connect.ts';
import { countriesFromDescribe } from './countries.ts';
import { salesforceData } from './data.ts';
import { type DescribeCache, forgetDescribes, salesforceDescribe } from './describe.ts';
import { salesforceFields } from './fields.ts';
import { salesforceGet } from './get.ts';
import { readLimitInfo } from './limit-info.ts';
import { SALESFORCE, SALESFORCE_PROFILE } from './profile.ts';
import { salesforceRetrieve } from './retrieve.ts';
import type { SalesforceSettings } from './settings.ts';
import { type PlanPolicy, salesforceDelete, salesforceSave, salesforceUpsert } from './writes.ts';

const PASS = SALESFORCE_PROFILE.passthrough;
const DESCRIBES_CHANGED = 'salesforce:describes-changed';

/**
 * The describe cache, cleared on every instance when a field is added through any of them (null:
 * notices may have been missed while Redis was away, so all of them).
 */
function describes(deps: ProviderDeps<SalesforceSettings>, apiVersion: string) {
  const cache: DescribeCache = new TtlCache({
    ttlMs: deps.settings.describeTtlMs,
    max: SALESFORCE_PROFILE.cachedDescribes,
    clock: deps.clock,
  });
  const describe = salesforceDescribe(cache, apiVersion);
  deps.shared?.subscribe(DESCRIBES_CHANGED, (connectionId) => {
    if (connectionId === null) cache.clear();
    else forgetDescribes(cache, connectionId);
  });
  const forgetEverywhere = async (connectionId: string): Promise<void> => {
    forgetDescribes(cache, connectionId);
    await deps.shared?.publish(DESCRIBES_CHANGED, connectionId);
  };
  return { describe, forgetEverywhere };
}

/** Salesforce: every operation of the API, on the org's REST, Tooling and Bulk 2.0 APIs. */
export function createSalesforceAdapter(deps: ProviderDeps<SalesforceSettings>): CrmAdapter {
  const { settings } = deps;
  const apiVersion = settings.apiVersion;
  const { describe, forgetEverywhere } = describes(deps, apiVersion);
  const data = salesforceData({
    apiVersion,
    clock: deps.clock,
    bulkThreshold: settings.bulkThreshold ?? SALESFORCE_PROFILE.defaultBulkThreshold,
    cursorKey: deps.signingKey,
    describe,
    forgetDescribes: forgetEverywhere,
  });
  // Every answer of every handler's session updates the org's allowance the write plans read.
  const allowances = new AllowanceBook(deps.clock, apiVersion);
  const policy: PlanPolicy = {
    allowances,
    frugalBelow: settings.frugalBelow ?? SALESFORCE_PROFILE.defaultFrugalBelow,
  };
  const observed =
    <O extends keyof OperationInputs>(handler: Handler<O>): Handler<O> =>
    (call, input) =>
      handler({ ...call, session: allowances.observing(call.session) }, input);
  const fields = salesforceFields(apiVersion, describe, data.query, data.forgetDescribes);
  return {
    profile: SALESFORCE,
    auth: salesforceAuth(deps.client, deps.clock),
    connect: salesforceConnect(deps.client, deps.clock, settings),
    // The REST API lives on the org's instance URL; a sandbox connection may override it.
    defaultApiBaseUrl: (c) => c.apiBaseUrl ?? c.instanceUrl ?? SALESFORCE_PROFILE.defaultLoginUrl,
    oauthApp(connection: Connection, sandboxClient: OAuthClient | undefined) {
      const clientId = sandboxClient?.clientId ?? settings.clientId;
      const clientSecret = sandboxClient?.clientSecret ?? settings.clientSecret;
      if (clientId === undefined || clientSecret === undefined) return null;
      // Refresh works on the login host and on the org's own (My Domain) host alike; a connection made
      // through the connect flow keeps the login host that issued its token (test.salesforce.com …).
      const host = connection.apiBaseUrl ?? connection.loginUrl ?? settings.loginUrl;
      return { clientId, clientSecret, tokenUrl: `${host}${SALESFORCE_PROFILE.tokenPath}` };
    },
    readAllowance: readLimitInfo,
    handlers: {
      insert: observed(salesforceSave('insert', deps.clock, describe, data, policy)),
      update: observed(salesforceSave('update', deps.clock, describe, data, policy)),
      delete: observed(salesforceDelete(deps.clock, data, policy)),
      upsert: observed(salesforceUpsert(describe, data)),
      get: observed(salesforceGet(describe, salesforceRetrieve(apiVersion))),
      query: observed<'query'>(({ session }, input) =>
        'soql' in input ? data.query(session, input.soql) : data.queryMore(session, input.cursor),
      ),
      describe: observed<'describe'>(async ({ session }, { objectName }) => {
        if (objectName === undefined) return describe.describeGlobal(session);
        const meta = await describe.describeObject(session, objectName);
        if (meta === null) throw await describe.unknownObject(session, objectName);
        return meta;
      }),
      countries: observed<'countries'>(async ({ session }) =>
        countriesFromDescribe(await describe.describeObject(session, 'Account')),
      ),
      // Salesforce's answer names its message `msg`.
      add_custom_field: observed<'add_custom_field'>(async ({ session }, input) => {
        const { data: created, message } = await fields.addCustomField(
          session,
          input.objectName,
          input.definition,
        );
        return { data: created, msg: message };
      }),
      passthrough: {
        forwardedHeaders: PASS.forwardedHeaders,
        publicOrigins: (c) => (c.instanceUrl === null ? [] : [c.instanceUrl]),
        tokenHeaders: (path, token): Record<string, string> | undefined =>
          path.startsWith(PASS.bulk1PathPrefix) ? { [PASS.bulk1SessionHeader]: token } : undefined,
      },
    },
  };
}
