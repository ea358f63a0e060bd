import { timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../crypto/random.ts';
import type { Connection, Region, TokenRecord } from '../domain/connection.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import type { Store, TokenRecordWithHash } from '../store/types.ts';
import { generateToken, hashToken, isDisplayPrefix, parseToken } from './token-format.ts';
import type { CreateTokenInput, CreateTokenResult, RevokeResult, VerifyResult } from './types.ts';

export interface AuthServiceOptions {
  store: Store;
  region: Region;
  /** Base URLs of both regions, named in the wrong_region message. */
  publicUrls: Partial<Record<Region, string>>;
  clock?: () => Date;
  cacheTtlMs?: number;
  /** last_used_at is written at most once per token per interval, not once per request. */
  lastUsedIntervalMs?: number;
  /** Receives failures of background last-used writes (they never fail a request). */
  onBackgroundError?: (err: unknown) => void;
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

// A cached token is used only while the store's change-feed version (read before its lookup) has not
// moved, so a revocation anywhere takes effect on the next request; the TTL bounds other staleness.
interface CachedToken {
  token: TokenRecord;
  connection: Connection;
  version: string;
}

export class AuthService {
  readonly #store: Store;
  readonly #region: Region;
  readonly #opts: AuthServiceOptions;
  readonly #clock: () => Date;
  readonly #cache: TtlCache<CachedToken>;
  readonly #lastWritten = new Map<string, number>();
  readonly #pending = new Set<Promise<void>>();

  constructor(opts: AuthServiceOptions) {
    this.#opts = opts;
    this.#store = opts.store;
    this.#region = opts.region;
    this.#clock = opts.clock ?? (() => new Date());
    const now = () => this.#clock().getTime();
    this.#cache = new TtlCache({ ttlMs: opts.cacheTtlMs ?? 60_000, max: 10_000, clock: { now } });
  }

  async verify(authorization: string | undefined): Promise<VerifyResult> {
    if (authorization === undefined || authorization.trim() === '') {
      return fail(
        'missing_token',
        'Send your API token in the Authorization header: "Authorization: Bearer crmp_…".',
      );
    }
    // Not "Bearer <token>": an empty token, which nothing caches and parseToken refuses.
    const raw = BEARER.exec(authorization)?.[1] ?? '';
    const now = this.#clock();
    const version = await this.#store.changes.version();
    // A token found in the cache was parsed, checksummed and region-checked when it was stored.
    const hash = hashToken(raw);
    const cached = this.#cache.get(hash);
    if (cached !== undefined && cached.version === version) return this.#accept(cached, now);
    const parsed = parseToken(raw);
    if (parsed === null) {
      return fail(
        'malformed_token',
        'The Authorization header must be "Bearer <token>" with a complete crm-proxy token (crmp_<region>_…); check that it was copied whole.',
      );
    }
    if (parsed.region !== this.#region) {
      const url = this.#opts.publicUrls[parsed.region];
      return fail(
        'wrong_region',
        `This token belongs to the ${parsed.region} region; send the request to ${url ?? `the ${parsed.region} region's base URL`} instead.`,
      );
    }

    const found = await this.#lookup(parsed.displayPrefix, hash);
    if (!found)
      return fail(
        'unknown_token',
        'This API token is not known here; create one with `./bin/crm-proxy.mjs tokens create`.',
      );
    const hit = { ...found, version };
    this.#cache.set(hash, hit);
    return this.#accept(hit, now);
  }

  /** The checks a known token passes on every request, cached or not. */
  #accept(hit: CachedToken, now: Date): VerifyResult {
    const { token, connection } = hit;
    if (token.revokedAt !== null) {
      return fail(
        'revoked_token',
        `This API token (${token.prefix}…) was revoked at ${token.revokedAt}; create a new one.`,
      );
    }
    if (token.expiresAt !== null && token.expiresAt <= now.toISOString()) {
      return fail(
        'expired_token',
        `This API token (${token.prefix}…) expired at ${token.expiresAt}; create a new one.`,
      );
    }
    this.#touch(token, now);
    return { ok: true, token, connection };
  }

  async #lookup(
    prefix: string,
    hash: string,
  ): Promise<{ token: TokenRecord; connection: Connection } | null> {
    const candidates = await this.#store.tokens.findByPrefix(prefix);
    const wanted = Buffer.from(hash, 'hex');
    let match: TokenRecordWithHash | undefined;
    // Compare against every candidate in constant time so timing reveals nothing about the stored hash.
    for (const c of candidates) {
      const stored = Buffer.from(c.hash, 'hex');
      if (stored.length === wanted.length && timingSafeEqual(stored, wanted)) match = c;
    }
    if (!match) return null;
    const conn = await this.#store.connections.find(match.connectionId);
    if (!conn) return null;
    const { hash: _h, ...token } = match;
    const { credentials: _c, ...connection } = conn;
    return { token, connection };
  }

  #touch(token: TokenRecord, now: Date): void {
    const last = this.#lastWritten.get(token.id) ?? (token.lastUsedAt ? Date.parse(token.lastUsedAt) : 0);
    if (now.getTime() - last < (this.#opts.lastUsedIntervalMs ?? 60_000)) return;
    this.#lastWritten.set(token.id, now.getTime());
    const p = this.#store.tokens
      .touch(token.id, now.toISOString())
      .catch((err: unknown) => this.#opts.onBackgroundError?.(err))
      .finally(() => this.#pending.delete(p));
    this.#pending.add(p);
  }

  async createToken(input: CreateTokenInput): Promise<CreateTokenResult> {
    const conn = await this.#store.connections.find(input.connectionId);
    if (!conn) {
      return {
        ok: false,
        code: 'connection_not_found',
        message: `No connection ${input.connectionId} in this region.`,
      };
    }
    const { token, displayPrefix } = generateToken(this.#region);
    const record = await this.#store.tokens.insert({
      id: `tok_${randomBase62(20)}`,
      connectionId: conn.id,
      name: input.name ?? null,
      prefix: displayPrefix,
      hash: hashToken(token),
      region: this.#region,
      expiresAt: input.expiresAt ? input.expiresAt.toISOString() : null,
      now: this.#clock().toISOString(),
    });
    return { ok: true, token, record };
  }

  list(connectionId?: string): Promise<TokenRecord[]> {
    return this.#store.tokens.list(connectionId);
  }

  /** Revokes by token id (`tok_…`), display prefix (`crmp_eu_AbCd1234`) or the whole token. */
  async revoke(ref: string): Promise<RevokeResult> {
    const found = await this.#resolve(ref.trim());
    if (!found.ok) return found;
    const { record } = found;
    if (record.revokedAt !== null) {
      return {
        ok: false,
        code: 'already_revoked',
        message: `Token ${record.id} was already revoked at ${record.revokedAt}.`,
      };
    }
    const now = this.#clock().toISOString();
    if (!(await this.#store.tokens.revoke(record.id, now))) {
      return { ok: false, code: 'already_revoked', message: `Token ${record.id} was already revoked.` };
    }
    this.#cache.deleteWhere((_hash, e) => e.token.id === record.id);
    return { ok: true, record: { ...record, revokedAt: now } };
  }

  async #resolve(
    ref: string,
  ): Promise<{ ok: true; record: TokenRecord } | Extract<RevokeResult, { ok: false }>> {
    const notFound = {
      ok: false as const,
      code: 'not_found' as const,
      message: `No token matches "${redactRef(ref)}".`,
    };
    if (ref.startsWith('tok_')) {
      const record = await this.#store.tokens.findById(ref);
      return record ? { ok: true, record } : notFound;
    }
    // A whole token is matched by its hash; a display prefix must name one token.
    const parsed = parseToken(ref);
    const prefix = parsed?.displayPrefix ?? (isDisplayPrefix(ref) ? ref : null);
    if (prefix === null) return notFound;
    const hash = parsed === null ? null : hashToken(ref);
    const matches = await this.#store.tokens.findByPrefix(prefix);
    const [first, second] = hash === null ? matches : matches.filter((c) => c.hash === hash);
    if (!first) return notFound;
    if (second) {
      return {
        ok: false,
        code: 'ambiguous',
        message: `Several tokens start with ${ref}; revoke by id (tok_…).`,
      };
    }
    const { hash: _h, ...record } = first;
    return { ok: true, record };
  }

  /** Waits for background last-used writes; call before closing the store. */
  async close(): Promise<void> {
    await Promise.all([...this.#pending]);
  }
}

function fail(code: Extract<VerifyResult, { ok: false }>['code'], message: string): VerifyResult {
  return { ok: false, code, message };
}

// A whole token pasted by mistake must not be echoed back into a terminal or a log.
function redactRef(ref: string): string {
  return parseToken(ref) ? `${ref.slice(0, 16)}…` : ref.slice(0, 40);
}
