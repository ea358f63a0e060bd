import { type Keyring, needsReseal, open, seal } from '../crypto/envelope.ts';
import { randomBase62 } from '../crypto/random.ts';
import type { Connection, Region } from '../domain/connection.ts';
import type { ProviderProfile } from '../providers/adapter.ts';
import { BUILT_IN_PROVIDERS } from '../providers/index.ts';
import type { ConnectionAccount, SealedSecret, Store } from '../store/types.ts';
import { PLAIN_HTTP_FIX, URL_FIELDS } from './plain-http.ts';
import type {
  ConnectionWithCredentials,
  CreateConnectionInput,
  CreateConnectionResult,
  Credentials,
} from './types.ts';

export interface ConnectionServiceOptions {
  store: Store;
  keyring: Keyring;
  region: Region;
  clock?: () => Date;
  /** The CRMs a connection may be for, and what each needs (default: the built-in providers). */
  profiles?: readonly ProviderProfile[];
  /** Sandbox connections may use plain-http URLs (false in production without the opt-out). */
  plainHttpForSandbox?: boolean;
}

// Associated data binds each ciphertext to its row: a ciphertext copied to another connection fails to open.
const aad = (connectionId: string) => `crm-proxy/connection/${connectionId}`;

export class ConnectionService {
  readonly #o: Required<ConnectionServiceOptions>;

  constructor(opts: ConnectionServiceOptions) {
    this.#o = {
      plainHttpForSandbox: true,
      profiles: BUILT_IN_PROVIDERS.map((m) => m.profile),
      clock: () => new Date(),
      ...opts,
    };
  }

  /** What is wrong with a connection to be created (a message naming the field), or null. */
  validate(input: CreateConnectionInput): string | null {
    const sandbox = input.sandbox ?? false;
    const profile = this.#o.profiles.find((p) => p.id === input.provider);
    if (profile === undefined) {
      return `provider must be ${this.#o.profiles.map((p) => `"${p.id}"`).join(' or ')}`;
    }
    const credProblem = credentialsProblem(input.credentials);
    if (credProblem) return credProblem;
    const crm = profile.displayName;
    if (profile.connection.instanceUrl === 'required' && !input.instanceUrl) {
      return `instanceUrl is required for a ${crm} connection`;
    }
    if (profile.connection.instanceUrl !== 'required' && input.instanceUrl) {
      const withHosts = this.#o.profiles
        .filter((p) => p.connection.instanceUrl === 'required')
        .map((p) => p.displayName);
      return `instanceUrl applies to ${withHosts.join(' and ')} connections only`;
    }
    if (!profile.connection.credentials.includes(input.credentials.kind)) {
      return `a ${crm} connection needs ${profile.connection.credentials.map((k) => (k === 'oauth' ? 'an OAuth refresh token' : 'a private app token')).join(' or ')}`;
    }
    for (const field of URL_FIELDS) {
      const url = input[field];
      const p = url ? urlProblem(field, url, sandbox, this.#o.plainHttpForSandbox) : null;
      if (p) return p;
    }
    if (input.label !== undefined && input.label !== null && input.label.length > 200) {
      return 'label must be at most 200 characters';
    }
    return null;
  }

  async create(input: CreateConnectionInput): Promise<CreateConnectionResult> {
    const problem = this.validate(input);
    if (problem) return { ok: false, code: 'invalid_connection', message: problem };
    const id = `conn_${randomBase62(20)}`;
    const connection = await this.#o.store.connections.insert({
      id,
      provider: input.provider,
      region: this.#o.region,
      label: input.label ?? null,
      instanceUrl: trimSlash(input.instanceUrl),
      apiBaseUrl: trimSlash(input.apiBaseUrl),
      sandbox: input.sandbox ?? false,
      credentials: this.#seal(id, input.credentials),
      now: this.#now(),
      accountId: input.accountId ?? null,
      loginUrl: trimSlash(input.loginUrl),
    });
    return { ok: true, connection };
  }

  /** Null when the connection does not exist. Throws CryptoError when its credentials cannot be opened. */
  async get(id: string): Promise<ConnectionWithCredentials | null> {
    const row = await this.#o.store.connections.find(id);
    if (!row) return null;
    const { credentials: sealed, ...connection } = row;
    return { connection, credentials: this.#open(id, sealed), version: connection.credentialsVersion };
  }

  list(): Promise<Connection[]> {
    return this.#o.store.connections.list();
  }

  /** Removes the connection and every API token of it. */
  remove(id: string): Promise<boolean> {
    return this.#o.store.connections.remove(id);
  }

  /** Saves only if nobody wrote since `expectedVersion`; a loser must re-read (the refresh token may have rotated). */
  async compareAndSetCredentials(
    id: string,
    expectedVersion: number,
    credentials: Credentials,
  ): Promise<boolean> {
    const problem = credentialsProblem(credentials);
    if (problem) throw new TypeError(problem);
    return this.#o.store.connections.compareAndSetCredentials(
      id,
      expectedVersion,
      this.#seal(id, credentials),
      this.#now(),
    );
  }

  /** Replaces the credentials whatever their version and marks the connection active (works after a lost key). */
  async reauthorize(id: string, credentials: Credentials): Promise<'updated' | 'not_found' | 'invalid'> {
    if (credentialsProblem(credentials)) return 'invalid';
    for (;;) {
      const row = await this.#o.store.connections.find(id);
      if (!row) return 'not_found';
      const profile = this.#o.profiles.find((p) => p.id === row.provider);
      if (profile !== undefined && !profile.connection.credentials.includes(credentials.kind))
        return 'invalid';
      if (await this.compareAndSetCredentials(id, row.credentialsVersion, credentials)) {
        await this.markActive(id);
        return 'updated';
      }
    }
  }

  /** Records what a re-connect reached: the account, the login host and the instance URL it answered. */
  setAccount(id: string, account: ConnectionAccount): Promise<boolean> {
    return this.#o.store.connections.setAccount(id, account, this.#now());
  }

  /** `reason` is shown to API clients and operators: never put a secret or a raw CRM response in it. */
  markNeedsReauth(id: string, reason: string): Promise<boolean> {
    return this.#o.store.connections.setStatus(id, 'needs_reauth', reason, this.#now());
  }

  markActive(id: string): Promise<boolean> {
    return this.#o.store.connections.setStatus(id, 'active', null, this.#now());
  }

  /** Re-encrypts every connection under the active key; a row changed meanwhile is re-read and retried. */
  async resealAll() {
    const report = { resealed: 0, current: 0, failed: [] as { id: string; message: string }[] };
    for (const { id } of await this.#o.store.connections.list()) {
      try {
        const outcome = await this.#reseal(id);
        if (outcome === 'resealed') report.resealed++;
        else if (outcome === 'current') report.current++;
      } catch (err) {
        report.failed.push({ id, message: err instanceof Error ? err.message : String(err) });
      }
    }
    return report;
  }

  async #reseal(id: string): Promise<'resealed' | 'current' | 'gone'> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await this.#o.store.connections.find(id);
      if (!row) return 'gone';
      if (!needsReseal(this.#o.keyring, row.credentials)) return 'current';
      const plaintext = open(this.#o.keyring, row.credentials, aad(id));
      const sealed = seal(this.#o.keyring, plaintext, aad(id));
      if (await this.#o.store.connections.replaceSealed(id, row.credentialsVersion, sealed, this.#now())) {
        return 'resealed';
      }
    }
    throw new Error('credentials kept changing during re-encryption; run rotate-key again');
  }

  #seal(id: string, credentials: Credentials): SealedSecret {
    return seal(this.#o.keyring, JSON.stringify(normaliseCredentials(credentials)), aad(id));
  }

  #open(id: string, sealed: SealedSecret): Credentials {
    const value: unknown = JSON.parse(open(this.#o.keyring, sealed, aad(id)));
    const problem = credentialsProblem(value);
    if (problem) throw new Error(`stored credentials of ${id} are invalid: ${problem}`);
    return value as Credentials;
  }

  #now(): string {
    return this.#o.clock().toISOString();
  }
}

function trimSlash(u: string | null | undefined): string | null {
  return u ? u.replace(/\/+$/, '') : null;
}

function urlProblem(field: string, value: string, allowHttp: boolean, plainHttp: boolean): string | null {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return `${field} must be an absolute URL`;
  }
  if (u.protocol === 'https:' || (allowHttp && plainHttp && u.protocol === 'http:')) return null;
  if (allowHttp && u.protocol === 'http:') return `${field} must use https. ${PLAIN_HTTP_FIX}`;
  return `${field} must use https${allowHttp ? ' or http' : ''}`;
}

/** Checks a decrypted or user-supplied value; returns an error message naming the bad field, or null. */
function credentialsProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'credentials must be an object';
  const c = value as Record<string, unknown>;
  const optionalString = (k: string) => c[k] === undefined || typeof c[k] === 'string';
  if (c['kind'] === 'oauth') {
    if (typeof c['refreshToken'] !== 'string' || c['refreshToken'] === '')
      return 'credentials.refreshToken is required';
    if (!optionalString('accessToken') || !optionalString('scope'))
      return 'credentials.accessToken/scope must be strings';
    const exp = c['accessTokenExpiresAt'];
    if (exp !== undefined && (typeof exp !== 'string' || Number.isNaN(Date.parse(exp)))) {
      return 'credentials.accessTokenExpiresAt must be an ISO-8601 timestamp';
    }
    return null;
  }
  if (c['kind'] === 'private_app') {
    return typeof c['token'] === 'string' && c['token'] !== '' ? null : 'credentials.token is required';
  }
  return 'credentials.kind must be "oauth" or "private_app"';
}

/** Keeps only the known fields, so nothing unexpected is ever sealed or returned. */
function normaliseCredentials(c: Credentials): Credentials {
  if (c.kind === 'private_app') return { kind: 'private_app', token: c.token };
  return {
    kind: 'oauth',
    refreshToken: c.refreshToken,
    ...(c.accessToken !== undefined ? { accessToken: c.accessToken } : {}),
    ...(c.accessTokenExpiresAt !== undefined ? { accessTokenExpiresAt: c.accessTokenExpiresAt } : {}),
    ...(c.scope !== undefined ? { scope: c.scope } : {}),
  };
}
