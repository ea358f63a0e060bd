import type { Connection } from '../domain/connection.ts';
import { ApiError } from '../errors/index.ts';
import type { Clock } from '../lib/clock.ts';
import { SingleFlight } from '../lib/single-flight.ts';
import type { AuthFacet, OAuthApp } from '../providers/adapter.ts';
import { CrmError } from '../providers/errors.ts';
import { type LocksRepository, LockTimeoutError } from '../store/types.ts';
import { plainHttpRefusal } from './plain-http.ts';
import type { ConnectionService } from './service.ts';
import {
  type ConnectionWithCredentials,
  type Credentials,
  grantCredentials,
  type OAuthCredentials,
} from './types.ts';

/** What the token manager needs from the connection service (structural, so tests can pass a fake). */
export type CredentialsStore = Pick<
  ConnectionService,
  'get' | 'compareAndSetCredentials' | 'markNeedsReauth'
>;

export interface TokenManagerOptions {
  connections: CredentialsStore;
  locks: LocksRepository;
  adapterFor: (connection: Connection) => {
    readonly auth: AuthFacet;
    readonly connect?: { readonly appVariables: readonly string[] } | undefined;
  };
  oauthAppFor: (connection: Connection) => OAuthApp | null;
  clock: Pick<Clock, 'now'>;
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** False in production without CRM_PROXY_ALLOW_PLAIN_HTTP_CRM: stored plain-http connections are refused. */
  plainHttpAllowed?: boolean;
}

interface CachedToken {
  accessToken: string;
  expiresAt: number | undefined;
  /** A private-app token: no refresh can replace it. */
  static?: true;
  /** When a CRM call with this token last got an answer other than 401. */
  acceptedAt?: number;
}

const CAS_ATTEMPTS = 3;
/** Refresh this long before a known expiry, so a token does not die in flight. */
const REFRESH_AHEAD_MS = 60_000;
/** Refresh lock lease: longer than a slow token call, short enough to recover from a crash. */
const LOCK_TTL_MS = 30_000;

/**
 * Access tokens, cached and refreshed ahead of expiry or after a CRM 401. Refreshes are single flight
 * in this process and under a store lock across instances; a rotated refresh token is stored
 * (compare-and-set) before the new access token is handed out.
 */
export class TokenManager {
  readonly #o: Required<Omit<TokenManagerOptions, 'log'>> & Pick<TokenManagerOptions, 'log'>;
  readonly #cache = new Map<string, CachedToken>();
  readonly #flight = new SingleFlight<string>();

  constructor(options: TokenManagerOptions) {
    this.#o = { plainHttpAllowed: true, ...options };
  }

  /** Every CRM call takes its token here, so a refused connection is stopped before anything is sent. */
  async accessToken(connection: Connection): Promise<string> {
    if (!this.#o.plainHttpAllowed) {
      const refusal = plainHttpRefusal(connection);
      if (refusal !== null) throw refusal;
    }
    if (connection.status === 'needs_reauth') throw needsReauth(connection);
    const cached = this.#cache.get(connection.id);
    if (cached !== undefined && !this.#expiringSoon(cached.expiresAt)) return cached.accessToken;
    return this.#flight.run(`${connection.id}:`, () => this.#obtain(connection, undefined));
  }

  /** The CRM rejected `rejected`: a different token, refreshing only if nobody has yet (one shared refresh). */
  async refreshAfterRejected(connection: Connection, rejected: string): Promise<string> {
    const cached = this.#cache.get(connection.id);
    if (cached !== undefined && cached.accessToken !== rejected) return cached.accessToken;
    return this.#flight.run(`${connection.id}:${rejected}`, () => this.#obtain(connection, rejected));
  }

  /** False for a token no refresh can replace (private app): a refused request cannot be retried. */
  refreshable(connectionId: string, token: string): boolean {
    const cached = this.#cache.get(connectionId);
    return cached?.accessToken !== token || cached.static !== true;
  }

  /** A CRM call with `token` was answered with anything but 401: the CRM accepts it right now. */
  accepted(connectionId: string, token: string): void {
    const cached = this.#cache.get(connectionId);
    if (cached?.accessToken === token) cached.acceptedAt = this.#o.clock.now();
  }

  /** `token` is current and was accepted within `windowMs`: a 401 then means revoked, not expired. */
  acceptedWithin(connectionId: string, token: string, windowMs: number): boolean {
    const cached = this.#cache.get(connectionId);
    if (windowMs <= 0 || cached?.accessToken !== token || cached.acceptedAt === undefined) return false;
    return this.#o.clock.now() - cached.acceptedAt < windowMs;
  }

  /** Forget the cached token (connection removed or re-authorised). */
  forget(connectionId: string): void {
    this.#cache.delete(connectionId);
  }

  async #obtain(connection: Connection, rejected: string | undefined): Promise<string> {
    const current = await this.#read(connection);
    const usable = this.#usableStored(current, rejected);
    if (usable !== null) return usable;
    try {
      return await this.#o.locks.withLock(`token-refresh:${connection.id}`, LOCK_TTL_MS, async () => {
        // Re-read under the lock: another instance may have refreshed while we waited.
        const fresh = await this.#read(connection);
        const stored = this.#usableStored(fresh, rejected);
        if (stored !== null) return stored;
        return this.#refresh(fresh, rejected);
      });
    } catch (error) {
      if (!(error instanceof LockTimeoutError)) throw error;
      throw new ApiError(
        'service_unavailable',
        'The access token of this connection is being refreshed and the refresh is taking too long. Retry in a few seconds.',
        { headers: { 'retry-after': '5' } },
      );
    }
  }

  async #read(connection: Connection): Promise<ConnectionWithCredentials> {
    const found = await this.#o.connections.get(connection.id);
    if (found === null) {
      this.forget(connection.id);
      throw new ApiError(
        'unknown_token',
        'The connection of this API token no longer exists. Create a new token.',
      );
    }
    if (found.connection.status === 'needs_reauth') throw needsReauth(found.connection);
    return found;
  }

  /** The stored access token when it can be used: not the rejected one and not about to expire. */
  #usableStored(found: ConnectionWithCredentials, rejected: string | undefined): string | null {
    const { credentials } = found;
    if (credentials.kind === 'private_app') {
      if (credentials.token === rejected) {
        // A static token the CRM refuses cannot be refreshed: only the user can replace it.
        throw needsReauth(found.connection);
      }
      this.#cache.set(found.connection.id, {
        accessToken: credentials.token,
        expiresAt: undefined,
        static: true,
      });
      return credentials.token;
    }
    const token = credentials.accessToken;
    if (token === undefined || token === rejected) return null;
    const expiresAt = expiryOf(credentials);
    if (this.#expiringSoon(expiresAt)) return null;
    this.#cache.set(found.connection.id, { accessToken: token, expiresAt });
    return token;
  }

  async #refresh(found: ConnectionWithCredentials, rejected: string | undefined): Promise<string> {
    const { connection, credentials } = found;
    if (credentials.kind !== 'oauth') throw needsReauth(connection);
    const app = this.#o.oauthAppFor(connection);
    const adapter = this.#o.adapterFor(connection);
    if (app === null) {
      const variables = adapter.connect?.appVariables ?? [];
      throw new ApiError(
        'connection_needs_reauth',
        `The service has no OAuth client configured for ${connection.provider}, so the access token of connection ${connection.id} cannot be refreshed. ${variables.length > 0 ? `Set ${variables.join(' and ')}` : 'Set the client id and secret in the configuration'} and restart the service.`,
      );
    }
    const outcome = await adapter.auth.refresh(app, credentials.refreshToken);
    if (!outcome.ok) {
      if (outcome.kind === 'invalid_grant') {
        await this.#o.connections.markNeedsReauth(
          connection.id,
          `token refresh refused: ${outcome.description}`,
        );
        this.forget(connection.id);
        this.#o.log?.warn(
          { connectionId: connection.id },
          'refresh token refused; connection needs re-authorisation',
        );
        throw needsReauth(connection);
      }
      throw new CrmError(connection.provider, 'crm_error', 'access token refresh failed', {
        status: outcome.status,
        crmBody: outcome.body,
      });
    }
    const next = grantCredentials(outcome.grant, credentials);
    await this.#store(found, next);
    this.#cache.set(connection.id, { accessToken: outcome.grant.accessToken, expiresAt: expiryOf(next) });
    this.#o.log?.info(
      {
        connectionId: connection.id,
        rotated: outcome.grant.refreshToken !== undefined,
        afterRejection: rejected !== undefined,
      },
      'access token refreshed',
    );
    return outcome.grant.accessToken;
  }

  /** On a conflict our grant still wins: it is the newest the CRM issued (rotation kills the old one). */
  async #store(found: ConnectionWithCredentials, next: Credentials): Promise<void> {
    let version = found.version;
    for (let attempt = 1; attempt <= CAS_ATTEMPTS; attempt++) {
      if (await this.#o.connections.compareAndSetCredentials(found.connection.id, version, next)) return;
      const again = await this.#o.connections.get(found.connection.id);
      if (again === null)
        throw new ApiError('unknown_token', 'The connection of this API token no longer exists.');
      version = again.version;
    }
    throw new Error(
      `could not store refreshed credentials of ${found.connection.id} after ${CAS_ATTEMPTS} attempts`,
    );
  }

  #expiringSoon(expiresAt: number | undefined): boolean {
    return expiresAt !== undefined && expiresAt - REFRESH_AHEAD_MS <= this.#o.clock.now();
  }
}

/** When the stored access token expires (ms), if the CRM said. */
function expiryOf(credentials: OAuthCredentials): number | undefined {
  const at = credentials.accessTokenExpiresAt;
  return at === undefined ? undefined : Date.parse(at);
}

function needsReauth(connection: Connection): ApiError {
  return new ApiError(
    'connection_needs_reauth',
    `Connection ${connection.id} (${connection.provider}) must be re-authorised: the CRM no longer accepts its credentials. Reconnect the account, then retry.`,
  );
}
