import type { ProviderModule } from './adapter.ts';
import { hubspotProvider } from './hubspot/index.ts';
import { salesforceProvider } from './salesforce/index.ts';

/** The CRMs this build speaks. Adding one is a folder under providers/ and a line here. */
export const BUILT_IN_PROVIDERS: readonly ProviderModule[] = [salesforceProvider, hubspotProvider];
