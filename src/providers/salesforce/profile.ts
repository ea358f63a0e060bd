import type { ProviderCapabilities } from '../adapter.ts';

/**
 * Salesforce facts as data. Sources: REST API developer guide (sObject Collections, describe,
 * OAuth refresh-token flow); see /docs for links.
 */
export const SALESFORCE_PROFILE = {
  provider: 'salesforce',
  defaultApiVersion: '62.0',
  defaultLoginUrl: 'https://login.salesforce.com',
  tokenPath: '/services/oauth2/token',
  dataPath: (version: string) => `/services/data/v${version}`,
  /** sObject Collections retrieve via POST: up to 2,000 ids per call (GET is URL-bound at ~800). */
  retrieveMaxIds: 2000,
  /** sObject Collections create/update/upsert/delete: 200 records per call. */
  collectionsMaxRecords: 200,
  /** Salesforce Ids: 15 case-sensitive or 18 case-insensitive alphanumerics. */
  idPattern: /^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$/,
} as const;

export const SALESFORCE_CAPABILITIES: ProviderCapabilities = {
  operations: [
    'insert',
    'upsert',
    'update',
    'delete',
    'get',
    'query',
    'describe',
    'add_custom_field',
    'passthrough',
  ],
  limits: { getIds: 10_000, writeRecords: 10_000, deleteIds: 10_000 },
  objectName: { pattern: /^[A-Za-z][A-Za-z0-9_]{0,79}$/, example: 'Account or Invoice__c' },
};
