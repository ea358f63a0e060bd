import type { ProviderModule } from '../adapter.ts';
import { createHubSpotAdapter } from './adapter.ts';
import { HUBSPOT } from './profile.ts';

export const hubspotProvider: ProviderModule = { profile: HUBSPOT, create: createHubSpotAdapter };
