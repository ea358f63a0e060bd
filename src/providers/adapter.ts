import type { Provider } from '../store/types.ts';
import type { OutboundRequest, OutboundResponse } from './client/types.ts';
import type { HubSpotObjectsFacet } from './hubspot/facet.ts';
import type { SalesforceDataFacet } from './salesforce/facet.ts';

/** The operations of the spec (§1). Which ones a provider offers is declared as data below. */
export const OPERATIONS = [
  'insert',
  'upsert',
  'update',
  'delete',
  'get',
  'query',
  'describe',
  'add_custom_field',
  'passthrough',
] as const;
export type OperationName = (typeof OPERATIONS)[number];

export interface ProviderCapabilities {
  /** Operations the spec gives this CRM; anything else answers 422 `operation_not_available`. */
  operations: readonly OperationName[];
  /** Request limits of the spec (§8), checked before any CRM call. */
  limits: { getIds: number; writeRecords: number; deleteIds: number };
  /** What an `{object_name}` path segment may look like, checked before it reaches a URL. */
  objectName: { pattern: RegExp; example: string };
}

/** The OAuth app the service registered with the CRM (client id/secret and token endpoint). */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  tokenUrl: string;
}

export interface TokenGrant {
  accessToken: string;
  /** ISO instant; absent when the CRM does not say (Salesforce). */
  accessTokenExpiresAt?: string;
  /** Present only when the CRM rotated the refresh token. */
  refreshToken?: string;
  scope?: string;
}

export type RefreshOutcome =
  | { ok: true; grant: TokenGrant }
  /** The refresh token is dead (revoked, rotated out, expired): the user must re-authorise. */
  | { ok: false; kind: 'invalid_grant'; description: string }
  /** The token endpoint failed for another reason; retrying later may work. */
  | { ok: false; kind: 'failed'; status?: number; body?: unknown };

/**
 * A connection ready for calls: its API base URL and a `send` that adds the access token and, on
 * a CRM 401, refreshes it once and resends. Built by the operations layer from the token manager.
 */
export interface CrmSession {
  readonly connectionId: string;
  readonly baseUrl: string;
  send(
    request: Omit<OutboundRequest, 'headers'> & { headers?: Record<string, string> },
  ): Promise<OutboundResponse>;
}

export interface AuthFacet {
  refresh(app: OAuthApp, refreshToken: string): Promise<RefreshOutcome>;
  /** True when a CRM answer means "this access token is no longer valid" (refresh, then retry once). */
  isExpiredToken(response: OutboundResponse): boolean;
  /** How the access token goes on a request. */
  authorize(headers: Record<string, string>, accessToken: string): Record<string, string>;
}

/** Salesforce's describe results, passed through unchanged (decisions §4). */
export interface DescribeFacet {
  describeGlobal(session: CrmSession): Promise<DescribeGlobalResult>;
  /** Null when the org has no such object. */
  describeObject(session: CrmSession, objectName: string): Promise<ObjectDescribe | null>;
  /** Canonical object name from the (cached) global describe; null when the org has no such object. */
  resolveObjectName(session: CrmSession, objectName: string): Promise<string | null>;
}

export interface DescribeGlobalResult {
  sobjects: Array<{ name: string; keyPrefix?: string | null } & Record<string, unknown>>;
  [key: string]: unknown;
}

export interface ObjectDescribe {
  name: string;
  keyPrefix?: string | null;
  fields: Array<{ name: string } & Record<string, unknown>>;
  [key: string]: unknown;
}

export type CrmRecord = Record<string, unknown>;

export interface RecordsFacet {
  /** Largest number of ids one retrieve call takes. */
  readonly retrieveBatchSize: number;
  /** One retrieve call: one entry per id, in order, `null` where the id matches no record. */
  retrieve(
    session: CrmSession,
    objectName: string,
    ids: string[],
    fields: string[],
  ): Promise<Array<CrmRecord | null>>;
  /**
   * The same call, answered as the CRM's JSON array text (one entry per id, in order), for callers
   * that pass it on unchanged and need not pay for parsing and re-serialising thousands of records.
   */
  retrieveJson(session: CrmSession, objectName: string, ids: string[], fields: string[]): Promise<string>;
}

/** Custom fields: each CRM checks the definition (400 `ApiError`) and answers its creation result. */
export interface FieldsFacet {
  addCustomField(
    session: CrmSession,
    objectName: string,
    definition: Record<string, unknown>,
  ): Promise<{ data: Record<string, unknown>; message: string }>;
}

/** One CRM behind one interface. Facets that are absent are not built yet (501), whatever the capabilities say. */
export interface CrmAdapter {
  readonly provider: Provider;
  readonly capabilities: ProviderCapabilities;
  /** Host of the CRM's API when the connection does not override it. */
  defaultApiBaseUrl(connection: { instanceUrl: string | null; apiBaseUrl: string | null }): string;
  /** Where the OAuth token endpoint is for this connection. */
  tokenUrl(connection: { instanceUrl: string | null; apiBaseUrl: string | null }, loginUrl?: string): string;
  readonly auth: AuthFacet;
  readonly describe?: DescribeFacet;
  readonly records?: RecordsFacet;
  readonly fields?: FieldsFacet;
  /** Salesforce writes, upsert and query (types in salesforce/facet.ts). */
  readonly salesforceData?: SalesforceDataFacet;
  /** HubSpot's get (types in hubspot/facet.ts). */
  readonly hubspotObjects?: HubSpotObjectsFacet;
}

export function offers(adapter: CrmAdapter, operation: OperationName): boolean {
  return adapter.capabilities.operations.includes(operation);
}
