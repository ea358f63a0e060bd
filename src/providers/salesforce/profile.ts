import type { ProviderProfile } from '../adapter.ts';

/** Salesforce facts as data, from the REST API and Bulk API 2.0 guides (links in /docs). */
export const SALESFORCE_PROFILE = {
  defaultApiVersion: '62.0',
  defaultLoginUrl: 'https://login.salesforce.com',
  tokenPath: '/services/oauth2/token',
  /** Who a token acts for: the check of a new connection, and the user whose records an interrupted insert created. */
  userInfoPath: '/services/oauth2/userinfo',
  dataPath: (version: string) => `/services/data/v${version}`,
  /** sObject Collections retrieve via POST: up to 2,000 ids per call (GET is URL-bound at ~800). */
  retrieveMaxIds: 2000,
  /** sObject Collections create/update/upsert/delete: 200 records per call. */
  collectionsMaxRecords: 200,
  /** Salesforce Ids: 15 case-sensitive or 18 case-insensitive alphanumerics. */
  idPattern: /^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$/,
  /** Query pages asked for (`Sforce-Query-Options: batchSize=…`) and records per answer before a cursor. */
  queryPageSize: 2_000,
  queryMaxRecordsPerAnswer: 10_000,
  /** Writes of at least this many records go through Bulk API 2.0 (docs/salesforce-writes.md). */
  defaultBulkThreshold: 2_000,
  /** Below this share of the daily allowance left, large writes take Bulk API 2.0 (the frugal plan). */
  defaultFrugalBelow: 0.5,
  /** An allowance read from `Sforce-Limit-Info` is trusted this long; older, `/limits` is asked. */
  allowanceFreshMs: 5 * 60_000,
  describeTtlMs: 10 * 60_000,
  /** Describes kept at most, over all connections (an org can have thousands of objects). */
  cachedDescribes: 5_000,
  /** Records that failed only on a row lock were not written: sent again, alone, this many rounds. */
  lockRetry: { statusCode: 'UNABLE_TO_LOCK_ROW', rounds: 2, baseMs: 200, maxMs: 2_000 },
  /** Bulk 2.0 job polling: first wait, growth ×1.5 up to the longest wait, and when to give up. */
  bulkPoll: { firstMs: 250, maxMs: 2_000, timeoutMs: 15 * 60_000 },
  /** The browser connect flow (web server flow with PKCE). */
  connect: {
    authorizePath: '/services/oauth2/authorize',
    /** `id` lets the flow call the identity URL; `refresh_token` (= offline_access) gives a refresh token. */
    scope: 'api refresh_token id',
    /** Login hosts an operator may name besides a My Domain URL. */
    loginHosts: ['login.salesforce.com', 'test.salesforce.com'],
    /** My Domain login hosts (`acme.my.salesforce.com`, `acme--dev.sandbox.my.salesforce.com`). */
    myDomainSuffixes: ['.my.salesforce.com', '.my.salesforce.mil'],
    /** Hosts an instance URL or identity URL from a token answer may be on. */
    answerHostSuffixes: ['.salesforce.com', '.force.com', '.salesforce.mil', '.cloudforce.com'],
    /** What the app's settings must contain (README). */
    appVariables: ['SALESFORCE_CLIENT_ID', 'SALESFORCE_CLIENT_SECRET'],
    /** The identity URL: `https://{login host}/id/{orgId}/{userId}`. */
    identityPath: /^\/id\/(00D[A-Za-z0-9]{12,15})\/(005[A-Za-z0-9]{12,15})$/,
  },
  passthrough: {
    /** Option headers are all `Sforce-*` (Query-Options, Auto-Assign, Call-Options, Duplicate-Rule-Header, Mru…), plus X-PrettyPrint. */
    forwardedHeaders: { names: ['x-prettyprint'], prefixes: ['sforce-'] },
    /** Bulk API 1.0 takes its session in its own header, not in Authorization. */
    bulk1PathPrefix: '/services/async/',
    bulk1SessionHeader: 'x-sfdc-session',
  },
} as const;

/** How a large write is carried (docs/salesforce-writes.md), the same for insert, update and delete. */
const WRITE_PLAN =
  'the service picks sObject Collections or Bulk API 2.0 by size and, from 2 000 records on, by the org’s daily API allowance left (Collections, the fastest, while at least half is left; Bulk, the fewest calls, below), and names it and why in the `X-CRM-Proxy-Interface` response header (`bulk2; reason=allowance-12%-left`); the same request header (`collections` | `bulk2`) forces one.';

export const SALESFORCE: ProviderProfile = {
  id: 'salesforce',
  displayName: 'Salesforce',
  limits: { getIds: 10_000, writeRecords: 10_000, deleteIds: 10_000 },
  objectName: { pattern: /^[A-Za-z][A-Za-z0-9_]{0,79}$/, example: 'Account or Invoice__c' },
  writeInterfaces: ['collections', 'bulk2'],
  // The REST API lives on the org's own host, so a connection must name it; refresh tokens only.
  connection: {
    instanceUrl: 'required',
    credentials: ['oauth'],
    instanceUrlExample: 'https://acme.my.salesforce.com',
  },
  // What the API document adds after each route's description where Salesforce is registered.
  doc: {
    routes: {
      insertRecords: WRITE_PLAN,
      updateRecords: WRITE_PLAN,
      deleteRecords: WRITE_PLAN,
      deleteObjectRecords:
        'the same as `/v1/object/delete` (its ids name their object; the name is checked for form only).',
      getRecords:
        'up to 10 000 ids; each record has `attributes`, `Id` and the requested fields (all fields when `fields` is absent or empty). Unknown fields: 400 `unknown_field` naming the closest real field. Ids that do not exist, or that are not Salesforce ids, answer `null` at their place; duplicates are answered at each place.',
      addCustomField:
        '`data` is a field definition (name, type, label; `length` for Text; `valueSet` for Picklist); answers `{data, msg}`.',
      describeObject:
        'its sObject Describe result, unchanged (`fields`, `childRelationships`, `recordTypeInfos`, …).',
      describeInstance: 'its Describe Global result, unchanged (cached per connection for a few minutes).',
    },
  },
};
