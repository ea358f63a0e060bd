import type { Provider } from '../store/types.ts';
import type { CrmAdapter } from './adapter.ts';
import type { HttpClient } from './client/http-client.ts';
import { createHubSpotAdapter } from './hubspot/adapter.ts';
import { createSalesforceAdapter } from './salesforce/adapter.ts';

export interface ProviderDeps {
  client: HttpClient;
  salesforce: { apiVersion: string; describeTtlMs: number; bulkThreshold?: number; cursorKey?: Buffer };
  clock?: { now(): number };
}

/** Provider name → adapter. Typed over the provider union: a missing entry does not compile. */
export type ProviderRegistry = { readonly [P in Provider]: CrmAdapter & { readonly provider: P } };

const FACTORIES: { [P in Provider]: (deps: ProviderDeps) => CrmAdapter & { readonly provider: P } } = {
  salesforce: createSalesforceAdapter,
  hubspot: createHubSpotAdapter,
};

export function createProviderRegistry(deps: ProviderDeps): ProviderRegistry {
  return {
    salesforce: FACTORIES.salesforce(deps),
    hubspot: FACTORIES.hubspot(deps),
  };
}
