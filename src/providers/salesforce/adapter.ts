import { randomBytes } from 'node:crypto';
import { systemClock } from '../../lib/clock.ts';
import type { CrmAdapter } from '../adapter.ts';
import type { ProviderDeps } from '../registry.ts';
import { salesforceAuth } from './auth.ts';
import { salesforceRecords } from './collections.ts';
import { salesforceData } from './data.ts';
import { salesforceDescribe } from './describe.ts';
import { DescribeCache } from './describe-cache.ts';
import { salesforceFields } from './fields.ts';
import { SALESFORCE_CAPABILITIES, SALESFORCE_PROFILE } from './profile.ts';

export function createSalesforceAdapter(
  deps: ProviderDeps,
): CrmAdapter & { readonly provider: 'salesforce' } {
  const apiVersion = deps.salesforce.apiVersion;
  const cache = new DescribeCache({ ttlMs: deps.salesforce.describeTtlMs, clock: deps.clock ?? systemClock });
  const describe = salesforceDescribe(cache, apiVersion);
  const data = salesforceData({
    apiVersion,
    ...(deps.salesforce.bulkThreshold === undefined ? {} : { bulkThreshold: deps.salesforce.bulkThreshold }),
    // Without a configured key, cursors are valid for this process only.
    cursorKey: deps.salesforce.cursorKey ?? randomBytes(32),
    describe,
    forgetDescribes: (connectionId) => cache.invalidate(connectionId),
  });
  return {
    provider: 'salesforce',
    capabilities: SALESFORCE_CAPABILITIES,
    // The REST API lives on the org's instance URL; a sandbox connection may override it.
    defaultApiBaseUrl: (c) => c.apiBaseUrl ?? c.instanceUrl ?? SALESFORCE_PROFILE.defaultLoginUrl,
    // Refresh works on the login host and on the org's own (My Domain) host alike.
    tokenUrl: (c, loginUrl) =>
      `${c.apiBaseUrl ?? loginUrl ?? SALESFORCE_PROFILE.defaultLoginUrl}${SALESFORCE_PROFILE.tokenPath}`,
    auth: salesforceAuth(deps.client),
    describe,
    records: salesforceRecords(apiVersion),
    salesforceData: data,
    fields: salesforceFields(apiVersion, describe, data.query, data.forgetDescribes),
  };
}
