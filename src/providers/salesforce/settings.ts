// Salesforce's settings (`config.providers.salesforce`, the adapter's `deps.settings`).
import { type StaticDecode, Type } from 'typebox';
import { absoluteUrl, text, whole } from '../../config/settings.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

export const salesforceSettings = Type.Object({
  /** The connected app that connects real orgs; unset: only sandbox connections and pasted tokens. */
  clientId: Type.Optional(text('SALESFORCE_CLIENT_ID')),
  clientSecret: Type.Optional(text('SALESFORCE_CLIENT_SECRET')),
  /** The login host new connections authorize at unless the link names another. */
  loginUrl: absoluteUrl({
    env: 'SALESFORCE_LOGIN_URL',
    problem: 'must be an http(s) URL such as https://login.salesforce.com',
    crmUrl: true,
    default: SALESFORCE_PROFILE.defaultLoginUrl,
  }),
  /** REST API version used for every Salesforce call. */
  apiVersion: text('SALESFORCE_API_VERSION', SALESFORCE_PROFILE.defaultApiVersion, {
    problem: 'must look like 62.0',
    pattern: '^\\d{2,3}\\.0$',
  }),
  /** Writes of at least this many records go through Bulk API 2.0 (unset: the profile's default). */
  bulkThreshold: Type.Optional(
    Type.Integer({
      env: 'CRM_PROXY_SF_BULK_THRESHOLD',
      problem: 'must be a whole number of records, 1 or more',
      minimum: 1,
    }),
  ),
  describeTtlMs: whole(
    'CRM_PROXY_SF_DESCRIBE_TTL_MS',
    SALESFORCE_PROFILE.describeTtlMs,
    0,
    86_400_000,
    'milliseconds',
  ),
  /** Below this share of the daily API allowance left, writes from the bulk threshold on take Bulk API 2.0. */
  frugalBelow: Type.Optional(
    Type.Number({
      env: 'CRM_PROXY_SALESFORCE_FRUGAL_BELOW',
      problem: 'must be a share of the daily API allowance from 0 to 1 (0.5: below half left)',
      minimum: 0,
      maximum: 1,
    }),
  ),
});

export type SalesforceSettings = StaticDecode<typeof salesforceSettings>;
