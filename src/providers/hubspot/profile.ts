import type { ProviderProfile } from '../adapter.ts';

/** HubSpot facts as data (CRM v3, OAuth v3; limits: developers.hubspot.com "usage guidelines"). */
export const HUBSPOT_PROFILE = {
  provider: 'hubspot',
  displayName: 'HubSpot',
  /** HubSpot's one API host, sandbox connections included. */
  defaultApiBaseUrl: 'https://api.hubapi.com',
  /** OAuth v1 is deprecated (sunset 2027-02-16); v3 takes the same form fields in the body. */
  tokenPath: '/oauth/v3/token',
  connect: {
    authorizeUrl: 'https://app.hubspot.com/oauth/authorize',
    /** Token information (v1, sunset 2027-02-16): `hub_id`, `user`, `scopes` of an access token. */
    tokenInfoPath: '/oauth/v1/access-tokens/',
    /** A cheap call any private-app token with the contacts scope may make. */
    privateAppCheckPath: '/crm/v3/objects/contacts?limit=1&archived=false',
    appVariables: ['HUBSPOT_CLIENT_ID', 'HUBSPOT_CLIENT_SECRET'],
    /** Required scopes must all be granted, so the rarer ones are optional. */
    scopes: [
      'oauth',
      'crm.objects.contacts.read',
      'crm.objects.contacts.write',
      'crm.objects.companies.read',
      'crm.objects.companies.write',
      'crm.objects.deals.read',
      'crm.objects.deals.write',
      'tickets',
      'crm.objects.owners.read',
      'crm.schemas.contacts.read',
      'crm.schemas.companies.read',
      'crm.schemas.deals.read',
    ],
    optionalScopes: [
      'crm.schemas.contacts.write',
      'crm.schemas.companies.write',
      'crm.schemas.deals.write',
      'crm.objects.custom.read',
      'crm.objects.custom.write',
      'crm.schemas.custom.read',
      'crm.objects.line_items.read',
      'crm.objects.products.read',
      'crm.objects.quotes.read',
      // Audit logs (Enterprise accounts only; optional, so other accounts still connect).
      'account-info.security.read',
    ],
  },
  /** Account activity API (Enterprise): no documented page size (its siblings cap at 200), so 100. */
  auditLogs: {
    path: '/account-info/v3/activity/audit-logs',
    scope: 'account-info.security.read',
    pageSize: 100,
    defaultPerAnswer: 1_000,
  },
  /** The schemas API's current path (the Node SDK moved off `/crm/v3/schemas` in 2024). */
  schemasPath: '/crm-object-schemas/v3/schemas',
  batchReadMaxIds: 100,
  /** batch/read with `propertiesWithHistory`. */
  batchReadWithHistoryMaxIds: 50,
  batchWriteMaxInputs: 100,
  /** CRM search: paging past `maxResults` is a 400. */
  search: {
    pageSize: 200,
    maxResults: 10_000,
    defaultPerAnswer: 2_000,
  },
  writeRecords: 10_000,
  /** HubSpot record ids are decimal strings (they may exceed 2^53: never parse them as numbers). */
  idPattern: /^[0-9]{1,30}$/,
  /** Properties HubSpot answers whatever was asked. */
  systemProperties: [
    'createdate',
    'hs_createdate',
    'lastmodifieddate',
    'hs_lastmodifieddate',
    'hs_object_id',
  ],
  propertiesTtlMs: 10 * 60_000,
  schemasTtlMs: 5 * 60_000,
  /** Object types whose property lists one connection keeps at most. */
  cachedTypesPerConnection: 1_000,
  /** A name that is not found refreshes the cached list, but not more often than this. */
  refreshOnMissMinMs: 2_000,
  rateLimits: {
    /** Per app; 100 is the lowest tier: the pacer starts there and adopts the first answer's headers. */
    windowMs: 10_000,
    initialMax: 100,
    /** CRM search has its own limit, outside the 10-second window. */
    searchWindowMs: 1_000,
    searchMax: 5,
    /** A 429 is retried while the waits add up to at most this. */
    maxRetryWaitMs: 15_000,
    maxAttempts: 5,
    /** Wait after a 429 that says nothing more precise. */
    fallbackWaitMs: 1_000,
  },
  headers: {
    max: 'x-hubspot-ratelimit-max',
    remaining: 'x-hubspot-ratelimit-remaining',
    interval: 'x-hubspot-ratelimit-interval-milliseconds',
  },
} as const;

/** Object types: path name, type id and other accepted spellings (`goals` are HubSpot's goal targets). */
export const STANDARD_OBJECTS = [
  { path: 'companies', typeId: '0-2', aliases: ['company'] },
  { path: 'contacts', typeId: '0-1', aliases: ['contact'] },
  { path: 'deals', typeId: '0-3', aliases: ['deal'] },
  { path: 'feedback_submissions', typeId: '0-19', aliases: ['feedback_submission'] },
  { path: 'line_items', typeId: '0-8', aliases: ['line_item'] },
  { path: 'products', typeId: '0-7', aliases: ['product'] },
  { path: 'quotes', typeId: '0-14', aliases: ['quote'] },
  { path: 'discounts', typeId: '0-84', aliases: ['discount'] },
  { path: 'fees', typeId: '0-85', aliases: ['fee'] },
  { path: 'taxes', typeId: '0-86', aliases: ['tax'] },
  { path: 'tickets', typeId: '0-5', aliases: ['ticket'] },
  { path: 'goal_targets', typeId: '0-74', aliases: ['goal_target', 'goals', 'goal'] },
  // Engagements, as objects (associations point at them).
  { path: 'notes', typeId: '0-46', aliases: ['note'] },
  { path: 'calls', typeId: '0-48', aliases: ['call'] },
  { path: 'emails', typeId: '0-49', aliases: ['email'] },
  { path: 'meetings', typeId: '0-47', aliases: ['meeting'] },
  { path: 'tasks', typeId: '0-27', aliases: ['task'] },
];

/** Associations have their own routes. */
export const ASSOCIATION_NAMES: readonly string[] = ['associations', 'association'];

/** Names of the audit log as an object (it has its own route). */
export const AUDIT_NAMES: readonly string[] = ['audit_logs', 'audit_log', 'auditlogs', 'property_history'];

/** Valid `type` → `fieldType` pairs for property creation, as HubSpot's properties guide lists them. */
export const FIELD_TYPES_BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  string: ['text', 'textarea', 'html', 'phonenumber', 'file', 'calculation_equation'],
  number: ['number', 'calculation_equation'],
  enumeration: ['select', 'radio', 'checkbox', 'booleancheckbox', 'calculation_equation'],
  bool: ['booleancheckbox', 'calculation_equation'],
  date: ['date'],
  datetime: ['date'],
  phone_number: ['phonenumber'],
};

export const HUBSPOT: ProviderProfile = {
  id: HUBSPOT_PROFILE.provider,
  displayName: HUBSPOT_PROFILE.displayName,
  limits: {
    getIds: HUBSPOT_PROFILE.batchReadMaxIds,
    writeRecords: HUBSPOT_PROFILE.writeRecords,
    deleteIds: HUBSPOT_PROFILE.writeRecords,
    getIdsWithHistory: HUBSPOT_PROFILE.batchReadWithHistoryMaxIds,
  },
  objectName: {
    pattern: /^(?:[A-Za-z][A-Za-z0-9_]{0,79}|\d{1,4}-\d{1,12})$/,
    example: 'contacts, 0-1, 2-123 or p_pets',
  },
  writeInterfaces: [],
  connection: { instanceUrl: 'forbidden', credentials: ['oauth', 'private_app'] },
  // Notes the API document adds to each route's description where HubSpot is registered.
  doc: {
    routes: {
      insertRecords:
        'batch create calls of 100 in parallel under the connection’s rate-limit pacing, results mapped back by `objectWriteTraceId`; values formatted for each property’s type (enumerations checked against the options with the closest one suggested); a duplicate unique value is that record’s `CONFLICT`.',
      updateRecords:
        'batch update calls of 100 in parallel under the connection’s pacing, values formatted as for insert, malformed or missing ids failing their record only, an id repeated in one request written in order.',
      deleteRecords:
        'its ids do not name their object type: use `/v1/object/delete/{object_name}` (400 here).',
      deleteObjectRecords:
        'needed, since HubSpot ids do not name their object type; the ids are read first (HubSpot’s batch archive answers the same for ids that do not exist), live ones archived in batches of 100, others fail with `OBJECT_NOT_FOUND`.',
      getRecords:
        'up to 100 ids read in one call; records as HubSpot shapes them (`id`, `properties`, `createdAt`, `updatedAt`, `archived`); all properties when `fields` is absent or empty, else those plus the system properties; `null` for missing ids with HubSpot’s own error entries in `errors`. Object names: plural names (`contacts`, `line_items`, `goals`, …), type ids, and custom objects by `2-…`, `p_…` or plain name. `propertiesWithHistory` (HubSpot, at most 50 ids) adds each record’s history of those properties; the account’s audit log is `POST /v1/audit_logs` (`audit_logs` as an object name: 422 pointing to both). `owners`, `deal_pipelines`, `ticket_pipelines`, `deal_stages`, `ticket_stages`: by id, in HubSpot’s shapes (archived owners too). Associations: 422 `object_not_supported`.',
      addCustomField:
        '`data` is a property definition (name, label, type, fieldType, groupName); answers `{data, message}`.',
      describeObject:
        "`name`, `objectTypeId`, `custom` and `properties`, each property as HubSpot's properties API gives it (`name`, `label`, `type`, `fieldType`, `options`, …).",
      describeInstance: "the standard object types and the account's custom objects from the schemas API.",
    },
  },
};
