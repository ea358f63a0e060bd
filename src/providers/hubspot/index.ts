import type { ProviderModule } from '../adapter.ts';
import { createHubSpotAdapter } from './adapter.ts';
import { HUBSPOT } from './profile.ts';
import { hubspotSettings } from './settings.ts';

export const hubspotProvider: ProviderModule<typeof hubspotSettings> = {
  profile: HUBSPOT,
  settings: hubspotSettings,
  create: createHubSpotAdapter,
};
