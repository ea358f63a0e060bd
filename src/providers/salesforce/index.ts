import type { ProviderModule } from '../adapter.ts';
import { createSalesforceAdapter } from './adapter.ts';
import { SALESFORCE } from './profile.ts';

export const salesforceProvider: ProviderModule = { profile: SALESFORCE, create: createSalesforceAdapter };
