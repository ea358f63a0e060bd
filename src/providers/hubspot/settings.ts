import { type StaticDecode, Type } from 'typebox';
import { decoded, text, type VariableOptions } from '../../config/settings.ts';
import { HUBSPOT_PROFILE } from './profile.ts';

/** OAuth scope names separated by spaces or commas, as a list. */
function scopeList(options: VariableOptions) {
  const scope = '[A-Za-z0-9._-]{1,100}';
  const list = Type.String({ ...options, pattern: `^[\\s,]*(${scope}([\\s,]+${scope})*)?[\\s,]*$` });
  return decoded(list, (value: string): readonly string[] => value.split(/[\s,]+/).filter((x) => x !== ''));
}

const SCOPES_PROBLEM = 'must be scope names separated by spaces (e.g. "oauth crm.objects.contacts.read")';

export const hubspotSettings = Type.Object({
  /** The public app that connects real accounts; unset: only sandbox connections and private apps. */
  clientId: Type.Optional(text('HUBSPOT_CLIENT_ID')),
  clientSecret: Type.Optional(text('HUBSPOT_CLIENT_SECRET')),
  /** Scopes the connect flow asks for, and may get; the app's settings must list the same. */
  scopes: scopeList({
    env: 'HUBSPOT_SCOPES',
    problem: SCOPES_PROBLEM,
    default: HUBSPOT_PROFILE.connect.scopes.join(' '),
  }),
  optionalScopes: scopeList({
    env: 'HUBSPOT_OPTIONAL_SCOPES',
    problem: SCOPES_PROBLEM,
    default: HUBSPOT_PROFILE.connect.optionalScopes.join(' '),
  }),
});

export type HubSpotSettings = StaticDecode<typeof hubspotSettings>;
