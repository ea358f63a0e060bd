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

/** What the rest of the service may know about a CRM, as data (each provider's `profile.ts`). */
export interface ProviderProfile {
  id: Provider;
  displayName: string;
  limits: {
    getIds: number;
    writeRecords: number;
    deleteIds: number;
    /** Ids per get with property history; absent when the CRM keeps none. */
    getIdsWithHistory?: number;
  };
  /** Checked before an `{object_name}` reaches a URL. */
  objectName: { pattern: RegExp; example: string };
  /** Write interfaces a client may force with `X-CRM-Proxy-Interface`; empty when the CRM has one. */
  writeInterfaces: readonly string[];
  connection: {
    instanceUrl: 'required' | 'forbidden';
    credentials: readonly ('oauth' | 'private_app')[];
    instanceUrlExample?: string;
  };
  doc: ProviderDocNotes;
}

/** Markdown the OpenAPI document shows per CRM. */
export interface ProviderDocNotes {
  /** By operationId: shown as "<display name>: <note>" after the route's description. */
  routes?: Readonly<Record<string, string>>;
}

/** The OAuth client the service registered with the CRM. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

export interface OAuthApp extends OAuthClient {
  tokenUrl: string;
}

export interface TokenGrant {
  accessToken: string;
  accessTokenExpiresAt?: string;
  /** Present only when the CRM rotated the refresh token. */
  refreshToken?: string;
  scope?: string;
}

export type RefreshOutcome =
  | { ok: true; grant: TokenGrant }
  /** invalid_grant: the refresh token is dead and the user must re-authorise; failed: may work later. */
  | { ok: false; kind: 'invalid_grant'; description: string }
  | { ok: false; kind: 'failed'; status?: number; body?: unknown };

/** `send` adds the access token and, on a CRM 401, refreshes it once and resends. */
export interface CrmSession {
  readonly connectionId: string;
  readonly baseUrl: string;
  send(request: OutboundRequest): Promise<OutboundResponse>;
}

export interface AuthFacet {
  refresh(app: OAuthApp, refreshToken: string): Promise<RefreshOutcome>;
  /** True when the answer means the access token is no longer valid. */
  isExpiredToken(response: OutboundResponse): boolean;
}

export interface JobProgress {
  processed: number;
  succeeded: number;
  failed: number;
}

/** Present when a write runs as a durable job; a resumed job runs the handler again with the same journal. */
export interface JobHook {
  readonly jobId: string;
  /** Absolute counts so far. */
  progress(counts: JobProgress, via?: string): void;
  /** Aborted on cancel: parts not yet sent are answered per record, open CRM jobs aborted. */
  readonly signal: AbortSignal;
  crmJob(id: string): Promise<void>;
  /** Runs a long wait on the CRM with the job's turn among its connection's jobs given to the next one. */
  away<T>(wait: () => Promise<T>): Promise<T>;
  readonly journal: {
    get(key: string): Promise<unknown>;
    set(key: string, value: unknown): Promise<void>;
  };
}

export interface HandlerCall {
  session: CrmSession;
  limiter: ConcurrencyLimiter;
  job?: JobHook | undefined;
}

/** A structured search: filter groups (OR of ANDs), sorts, properties, a text query. */
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
  limit?: number;
}

/** ISO bounds are exclusive. */
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
  /** Needed where ids do not name their type. */
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
  /** In the CRM's own answer shape. */
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

export type AnswerHead = Pick<OutboundResponse, 'status' | 'headers'>;

/** A CRM's facts and hooks for the generic pass-through (operations/passthrough.ts). */
export interface PassthroughHandler {
  /** Client headers passed on besides the common ones. */
  forwardedHeaders: { names: readonly string[]; prefixes: readonly string[] };
  /** Origins a target may name besides the API base URL; all lead to it. */
  publicOrigins(connection: Connection): string[];
  /** Extra headers that carry the access token on this path. */
  tokenHeaders?(path: string, accessToken: string): Record<string, string> | undefined;
  /** Runs the forward within the connection's own pacing. */
  pace?<T>(
    connectionId: string,
    path: string,
    send: () => Promise<T>,
    headOf: (answer: T) => AnswerHead,
  ): Promise<T>;
}

/** The operations a CRM offers: anything absent answers 422. */
export type OperationHandlers = { readonly [O in keyof OperationInputs]?: Handler<O> } & {
  readonly passthrough?: PassthroughHandler;
};

/** Where a connect flow talks to the CRM: its login host, or a sandbox standing in for it. */
export interface ConnectTarget {
  origin: string;
  /** A local sandbox CRM: its API is there too; plain http allowed. */
  sandbox: boolean;
}

export type CodeExchangeOutcome =
  | {
      ok: true;
      grant: TokenGrant & { refreshToken: string };
      /** Salesforce's `instance_url` and identity URL `id`. */
      instanceUrl: string | null;
      identityUrl: string | null;
    }
  /** invalid_grant: the code is unknown, used or expired. */
  | { ok: false; kind: 'invalid_grant' | 'failed'; description: string; status?: number };

export type AccessCheckOutcome =
  | { ok: true; accountId: string | null; user: string | null }
  | { ok: false; description: string; status?: number };

/** The CRM's facts and wire calls for the OAuth code flow; the generic flow is in src/connect. */
export interface ConnectFacet {
  /** The environment variables that configure the OAuth app (for messages). */
  readonly appVariables: readonly string[];
  /** Null when the app's variables are not set. */
  configuredApp(): OAuthClient | null;
  /** The chosen login host as an origin; only the CRM's own hosts pass, as the secret goes there. */
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
  /** One cheap call with the new tokens: which account they reach. */
  checkGrant(
    target: ConnectTarget,
    exchange: Extract<CodeExchangeOutcome, { ok: true }>,
  ): Promise<AccessCheckOutcome>;
  /** The same check for a stored connection's access token (CLI). */
  checkAccess(
    connection: Pick<Connection, 'instanceUrl' | 'apiBaseUrl' | 'sandbox'>,
    credentialKind: 'oauth' | 'private_app',
    accessToken: string,
  ): Promise<AccessCheckOutcome>;
}

export interface CrmAdapter {
  readonly profile: ProviderProfile;
  readonly auth: AuthFacet;
  defaultApiBaseUrl(connection: Pick<Connection, 'instanceUrl' | 'apiBaseUrl'>): string;
  /** Null when none is configured. */
  oauthApp(connection: Connection, sandboxClient: OAuthClient | undefined): OAuthApp | null;
  readonly handlers: OperationHandlers;
  /** Absent: connections are added by the CLI. */
  readonly connect?: ConnectFacet;
  /** The account's daily API allowance from an answer's headers. */
  readAllowance?(headers: AnswerHead['headers']): { used: number; limit: number } | undefined;
}

export interface ProviderDeps<Settings = unknown> {
  client: HttpClient;
  clock: Clock;
  settings: Settings;
  /** What instances share (Redis); absent: this process alone. */
  shared?: SharedState;
  /** Metrics of waits in the CRM's own pacing. */
  onPacerWait?: (crm: string, kind: string, waitMs: number) => void;
  /** Signs cursors; stable per deployment. */
  signingKey: Buffer;
}

/** One provider: its profile, its environment settings and how to build its adapter. */
export interface ProviderModule<Declaration extends SettingsDeclaration = SettingsDeclaration> {
  readonly profile: ProviderProfile;
  readonly settings: Declaration;
  create(deps: ProviderDeps<StaticDecode<Declaration>>): CrmAdapter;
}
