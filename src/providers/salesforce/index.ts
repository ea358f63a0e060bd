import type { ProviderModule } from '../adapter.ts';
import { createSalesforceAdapter } from './adapter.ts';
import { SALESFORCE } from './profile.ts';
import { salesforceSettings } from './settings.ts';

export const salesforceProvider: ProviderModule<typeof salesforceSettings> = {
  profile: SALESFORCE,
  settings: salesforceSettings,
  create: createSalesforceAdapter,
};
