import type { StaticDecode } from 'typebox';
import type { SettingsDeclaration } from '../config/settings.ts';
import type { Connection, Provider } from '../domain/connection.ts';
import type {
  AssociationLink,
  AuditLogPage,
  CountryList,
  GetAnswer,
  QueryPage,
  RecordAssociations,
  UpsertOutcome,
  WriteAnswer,
} from '../domain/operations.ts';
import type { Clock } from '../lib/clock.ts';
import type { ConcurrencyLimiter } from '../lib/limiter.ts';
import type { SharedState } from '../lib/shared-state.ts';
import type { HttpClient } from './client/http-client.ts';
import type { OutboundRequest, OutboundResponse } from './client/types.ts';

/**
 * What the rest of the service may know about a CRM, as data. Each provider folder fills one in
 * its `profile.ts`; the operations, the HTTP layer and the connection service read it from here.
 */
export interface ProviderProfile {
  id: Provider;
  displayName: string;
  /** Checked before any CRM call. */
  limits: {
    getIds: number;
    writeRecords: number;
    deleteIds: number;
    /** Ids per get that asks for property history; absent when the CRM offers none. */
    getIdsWithHistory?: number;
  };
  /** What an `{object_name}` path segment may look like, checked before it reaches a URL. */
  objectName: { pattern: RegExp; example: string };
  /** Write interfaces a client may force with `X-CRM-Proxy-Interface`; empty when the CRM has one. */
  writeInterfaces: readonly string[];
  connection: {
    /** Whether a connection names its account's own host (`instanceUrl`). */
    instanceUrl: 'required' | 'forbidden';
    /** Credential kinds the CRM accepts. */
    credentials: readonly ('oauth' | 'private_app')[];
    /** An account host, for messages asking for `instanceUrl`. */
    instanceUrlExample?: string;
  };
  doc: ProviderDocNotes;
}

/** Markdown fragments the OpenAPI document shows for each registered CRM (src/http/plugins/openapi.ts). */
export interface ProviderDocNotes {
  /** By operationId (`insertRecords`): shown as "<display name>: <note>" after the route's description. */
  routes?: Readonly<Record<string, string>>;
}

/** The OAuth client the service registered with the CRM. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/** An OAuth client with the token endpoint that refreshes a connection's tokens. */
export interface OAuthApp extends OAuthClient {
  tokenUrl: string;
}

export interface TokenGrant {
  accessToken: string;
  /** ISO instant; absent when the CRM does not say. */
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
  send(request: OutboundRequest): Promise<OutboundResponse>;
}

export interface AuthFacet {
  refresh(app: OAuthApp, refreshToken: string): Promise<RefreshOutcome>;
  /** True when a CRM answer means "this access token is no longer valid" (refresh, then retry once). */
  isExpiredToken(response: OutboundResponse): boolean;
}

/** Counts of a running write that move while it runs. */
export interface JobProgress {
  processed: number;
  succeeded: number;
  failed: number;
}

/**
 * Present when a write runs as a durable job (src/jobs/). A handler uses what it can and ignores
 * the rest; without it a handler behaves as a plain request. A job that was interrupted (crash)
 * runs the same handler again with the same input and the same journal.
 */
export interface JobHook {
  readonly jobId: string;
  /** Counts so far, absolute. */
  progress(counts: JobProgress, via?: string): void;
  /** Aborted when the job is cancelled: parts not yet sent are answered per record, open CRM jobs aborted. */
  readonly signal: AbortSignal;
  crmJob(id: string): Promise<void>;
  /**
   * Runs `wait`, a wait on the CRM during which the job holds little (a Bulk job Salesforce is
   * processing), with the job's turn among its connection's jobs given to the next one; the turn
   * is taken back, in order, before it returns.
   */
  away<T>(wait: () => Promise<T>): Promise<T>;
  readonly journal: {
    get(key: string): Promise<unknown>;
    set(key: string, value: unknown): Promise<void>;
  };
}

/** What every handler gets: the authorised session, the connection's concurrency cap, and its job if any. */
export interface HandlerCall {
  session: CrmSession;
  limiter: ConcurrencyLimiter;
  job?: JobHook | undefined;
}

/** A structured search: filter groups (OR of ANDs), sorts, properties to return, a text query. */
export interface SearchRequest {
  filterGroups?: Array<{
    filters: Array<{
      propertyName: string;
      operator: string;
      value?: string | number | boolean;
      highValue?: string | number | boolean;
      values?: Array<string | number | boolean>;
    }>;
  }>;
  /** `"name"` / `"-name"`, or `{propertyName, direction}`. */
  sorts?: Array<string | { propertyName: string; direction: 'ASCENDING' | 'DESCENDING' }>;
  properties?: string[];
  query?: string;
  /** Records per answer; the rest through `next_cursor`. */
  limit?: number;
}

/** Which entries of the account's audit log to read: ISO bounds (exclusive), acting users, order, page size. */
export interface AuditLogFilter {
  occurredAfter?: string | undefined;
  occurredBefore?: string | undefined;
  actingUserIds?: number[] | undefined;
  newestFirst?: boolean | undefined;
  limit?: number | undefined;
}

/** Inputs of each operation, already checked against the profile (object name, limits, interface). */
export interface OperationInputs {
  insert: { objectName: string; records: unknown[]; via: string | undefined };
  update: { objectName: string; records: unknown[]; via: string | undefined };
  /** `objectName` from `/v1/object/delete/{object_name}`: needed where ids do not name their type. */
  delete: { objectName: string | undefined; ids: string[]; via: string | undefined };
  upsert: { objectName: string; record: unknown; matchKey: string };
  get: {
    objectName: string;
    ids: string[];
    fields: string[] | undefined;
    propertiesWithHistory?: string[] | undefined;
  };
  query: { soql: string } | { cursor: string };
  search: { objectName: string; request: SearchRequest } | { cursor: string };
  /** Without an object name: the whole instance. */
  describe: { objectName: string | undefined };
  countries: Record<string, never>;
  add_custom_field: { objectName: string; definition: Record<string, unknown> };
  associations: { objectName: string; ids: string[]; to: string };
  associate: { objectName: string; links: AssociationLink[] };
  dissociate: { objectName: string; links: AssociationLink[] };
  audit_logs: { filter: AuditLogFilter } | { cursor: string };
}

export interface OperationAnswers {
  insert: WriteAnswer;
  update: WriteAnswer;
  delete: WriteAnswer;
  upsert: UpsertOutcome;
  get: GetAnswer;
  query: QueryPage;
  search: QueryPage;
  /** The CRM's describe, unchanged; null when it has no such object. */
  describe: Record<string, unknown> | null;
  countries: CountryList;
  /** The creation result in the CRM's own answer shape (`data` plus its message key). */
  add_custom_field: { data: Record<string, unknown> } & Record<string, unknown>;
  associations: { data: RecordAssociations[] };
  associate: WriteAnswer;
  dissociate: WriteAnswer;
  audit_logs: AuditLogPage;
}

export type Handler<O extends keyof OperationInputs> = (
  call: HandlerCall,
  input: OperationInputs[O],
) => Promise<OperationAnswers[O]>;

/** What an answer of the CRM looks like to the pacing of a pass-through call. */
export type AnswerHead = Pick<OutboundResponse, 'status' | 'headers'>;

/** Pass-through is generic (operations/passthrough.ts); a CRM contributes only these facts and hooks. */
export interface PassthroughHandler {
  /** Request headers of the client passed on besides the common ones: exact names and prefixes. */
  forwardedHeaders: { names: readonly string[]; prefixes: readonly string[] };
  /** Origins a target may name besides the API base URL; all lead to the API base URL. */
  publicOrigins(connection: Connection): string[];
  /** Extra headers that carry the access token on this path; undefined: none. */
  tokenHeaders?(path: string, accessToken: string): Record<string, string> | undefined;
  /** Runs the forward within the connection's own pacing; the answer comes back as it is. */
  pace?<T>(
    connectionId: string,
    path: string,
    send: () => Promise<T>,
    headOf: (answer: T) => AnswerHead,
  ): Promise<T>;
}

/** The operations a CRM offers. Its keys are its capabilities: anything absent answers 422. */
export type OperationHandlers = { readonly [O in keyof OperationInputs]?: Handler<O> } & {
  readonly passthrough?: PassthroughHandler;
};

/** Where a connect flow talks to the CRM: its login host, or a sandbox standing in for it. */
export interface ConnectTarget {
  /** Origin of the consent page and token endpoint (Salesforce: the chosen login host). */
  origin: string;
  /** True when `origin` is a local sandbox CRM (its API is there too; plain http allowed). */
  sandbox: boolean;
}

export type CodeExchangeOutcome =
  | {
      ok: true;
      grant: TokenGrant & { refreshToken: string };
      /** The account's own API host when the CRM names one (Salesforce `instance_url`). */
      instanceUrl: string | null;
      /** Where the check call goes when the CRM says (Salesforce's identity URL `id`). */
      identityUrl: string | null;
    }
  /** invalid_grant: the code is unknown, used or expired; failed: anything else (status when answered). */
  | { ok: false; kind: 'invalid_grant' | 'failed'; description: string; status?: number };

/** The account a check call reached, or why not. */
export type AccessCheckOutcome =
  | { ok: true; accountId: string | null; user: string | null }
  | { ok: false; description: string; status?: number };

/**
 * The CRM's side of the OAuth authorization-code flow: only its facts and wire calls. The generic
 * flow (state, binding, PKCE verifier, pages) lives in src/connect; every flow uses PKCE (S256).
 */
export interface ConnectFacet {
  /** The environment variables that configure the service's OAuth app with this CRM (for messages). */
  readonly appVariables: readonly string[];
  /** Null when the app's variables are not set. */
  configuredApp(): OAuthClient | null;
  /**
   * The login host an operator chose, checked and normalised to an origin; undefined means the
   * configured default. Only the CRM's own hosts pass: the client secret is sent there.
   */
  loginOrigin(choice: string | undefined): { ok: true; origin: string } | { ok: false; message: string };
  authorizeUrl(
    target: ConnectTarget,
    input: { clientId: string; redirectUri: string; state: string; codeChallenge: string },
  ): string;
  exchangeCode(
    target: ConnectTarget,
    app: OAuthClient,
    input: { code: string; redirectUri: string; codeVerifier: string },
  ): Promise<CodeExchangeOutcome>;
  /** One cheap authenticated call with the new tokens; says which account they reach. */
  checkGrant(
    target: ConnectTarget,
    exchange: Extract<CodeExchangeOutcome, { ok: true }>,
  ): Promise<AccessCheckOutcome>;
  /** The same check for a stored connection's access token (credentials pasted into the CLI). */
  checkAccess(
    connection: Pick<Connection, 'instanceUrl' | 'apiBaseUrl' | 'sandbox'>,
    credentialKind: 'oauth' | 'private_app',
    accessToken: string,
  ): Promise<AccessCheckOutcome>;
}

/** One CRM behind one interface: its facts, its auth, and the table of operations it offers. */
export interface CrmAdapter {
  readonly profile: ProviderProfile;
  readonly auth: AuthFacet;
  defaultApiBaseUrl(connection: Pick<Connection, 'instanceUrl' | 'apiBaseUrl'>): string;
  /** The OAuth app that refreshes this connection's tokens; null when none is configured. */
  oauthApp(connection: Connection, sandboxClient: OAuthClient | undefined): OAuthApp | null;
  readonly handlers: OperationHandlers;
  /** The browser connect flow; absent when the CRM has none (connections are then added by the CLI). */
  readonly connect?: ConnectFacet;
  /** The account's daily API allowance as an answer's headers report it (shown to operators). */
  readAllowance?(headers: AnswerHead['headers']): { used: number; limit: number } | undefined;
}

/** Everything a provider's factory gets from `createContext`: its own settings and the shared services. */
export interface ProviderDeps<Settings = unknown> {
  client: HttpClient;
  clock: Clock;
  /** This provider's settings (`config.providers[id]`). */
  settings: Settings;
  /**
   * What instances share (Redis): the CRM's pacing windows, concurrency places and cache notices.
   * Absent (the CLI, tests): this process alone.
   */
  shared?: SharedState;
  /** A call was held back `waitMs` by the CRM's own pacing (metrics). */
  onPacerWait?: (crm: string, kind: string, waitMs: number) => void;
  /** A key for signing values the provider hands out (query cursors): stable per deployment. */
  signingKey: Buffer;
}

/**
 * One provider as the registry lists it: its profile, the settings it reads from the environment
 * (src/config/settings.ts) and how to build its adapter from them.
 */
export interface ProviderModule<Declaration extends SettingsDeclaration = SettingsDeclaration> {
  readonly profile: ProviderProfile;
  readonly settings: Declaration;
  create(deps: ProviderDeps<StaticDecode<Declaration>>): CrmAdapter;
}
