// Operator accounts, console sessions and operator API keys.
import { createHash, randomBytes } from 'node:crypto';
import { randomBase62 } from '../crypto/random.ts';
import type { Operator, OperatorKey, OperatorSession, Store } from '../store/types.ts';
import { decoyHash, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.ts';

export interface SessionPolicy {
  /** A session ends this long after sign-in, however active. */
  absoluteMs: number;
  /** A session unused this long ends. */
  idleMs: number;
}

export const DEFAULT_SESSION_POLICY: SessionPolicy = { absoluteMs: 12 * 3600_000, idleMs: 60 * 60_000 };

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const KEY = /^crmpk_[0-9A-Za-z]{43}$/;

export interface SignedIn {
  operator: Operator;
  session: OperatorSession;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

export class OperatorError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
    this.name = 'OperatorError';
  }
}

export class OperatorService {
  readonly #store: Store;
  readonly #now: () => number;
  readonly #policy: SessionPolicy;
  /** Writes of last_seen_at are spaced out: one a minute per session is enough for the idle timeout. */
  readonly #touched = new Map<string, number>();

  constructor(opts: { store: Store; now: () => number; policy?: SessionPolicy }) {
    this.#store = opts.store;
    this.#now = opts.now;
    this.#policy = opts.policy ?? DEFAULT_SESSION_POLICY;
  }

  #iso(offsetMs = 0): string {
    return new Date(this.#now() + offsetMs).toISOString();
  }

  async create(email: string, password: string): Promise<Operator> {
    const normalized = email.trim().toLowerCase();
    if (!EMAIL.test(normalized)) throw new OperatorError('email', 'email must look like name@example.com');
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw new OperatorError(
        'password',
        `the password must be at least ${MIN_PASSWORD_LENGTH} characters long`,
      );
    }
    if (await this.#store.operators.findByEmail(normalized)) {
      throw new OperatorError('email', `an operator ${normalized} exists already`);
    }
    return this.#store.operators.insert({
      id: `op_${randomBase62(16)}`,
      email: normalized,
      passwordHash: await hashPassword(password),
      now: this.#iso(),
    });
  }

  list(): Promise<Operator[]> {
    return this.#store.operators.list();
  }

  async find(emailOrId: string): Promise<Operator | null> {
    if (emailOrId.startsWith('op_')) return this.#store.operators.findById(emailOrId);
    return this.#store.operators.findByEmail(emailOrId.trim().toLowerCase());
  }

  /** The operator when email and password match; null otherwise, whichever of the two was wrong. */
  async checkPassword(email: string, password: string): Promise<Operator | null> {
    const found = await this.#store.operators.findByEmail(email.trim().toLowerCase());
    const ok = await verifyPassword(password, found?.passwordHash ?? (await decoyHash));
    if (!found || !ok) return null;
    const { passwordHash: _h, ...operator } = found;
    return operator;
  }

  /** Starts a session: the cookie value goes to the browser only; the store keeps its hash. */
  async startSession(operator: Operator): Promise<{ cookieValue: string; session: OperatorSession }> {
    const cookieValue = randomBytes(32).toString('base64url');
    const session: OperatorSession = {
      idHash: sha256(cookieValue),
      operatorId: operator.id,
      csrfToken: randomBytes(32).toString('base64url'),
      createdAt: this.#iso(),
      lastSeenAt: this.#iso(),
      expiresAt: this.#iso(this.#policy.absoluteMs),
    };
    await this.#store.operators.insertSession(session);
    await this.#store.operators.signedIn(operator.id, session.createdAt);
    await this.#store.operators.pruneSessions(this.#iso(), this.#iso(-this.#policy.idleMs));
    return { cookieValue, session };
  }

  /** The signed-in operator of a session cookie; null when unknown, expired or idle too long. */
  async session(cookieValue: string | undefined): Promise<SignedIn | null> {
    if (cookieValue === undefined || !/^[A-Za-z0-9_-]{43}$/.test(cookieValue)) return null;
    const idHash = sha256(cookieValue);
    const session = await this.#store.operators.findSession(idHash);
    if (!session) return null;
    const now = this.#now();
    if (Date.parse(session.expiresAt) <= now || Date.parse(session.lastSeenAt) + this.#policy.idleMs <= now) {
      await this.#store.operators.deleteSession(idHash);
      return null;
    }
    const operator = await this.#store.operators.findById(session.operatorId);
    if (!operator) return null;
    const last = this.#touched.get(idHash) ?? Date.parse(session.lastSeenAt);
    if (now - last >= 60_000) {
      this.#touched.set(idHash, now);
      await this.#store.operators.touchSession(idHash, this.#iso());
    }
    return { operator, session };
  }

  async endSession(cookieValue: string | undefined): Promise<void> {
    if (cookieValue === undefined) return;
    const idHash = sha256(cookieValue);
    this.#touched.delete(idHash);
    await this.#store.operators.deleteSession(idHash);
  }

  /** A new operator API key, shown once: `crmpk_` and 43 random base62 characters (256 bits). */
  async createKey(operator: Operator, label: string | null): Promise<{ key: string; record: OperatorKey }> {
    const key = `crmpk_${randomBase62(43)}`;
    const record = await this.#store.operators.insertKey({
      id: `opk_${randomBase62(16)}`,
      operatorId: operator.id,
      label,
      prefix: key.slice(0, 14),
      hash: sha256(key),
      createdAt: this.#iso(),
      lastUsedAt: null,
      revokedAt: null,
    });
    return { key, record };
  }

  listKeys(): Promise<OperatorKey[]> {
    return this.#store.operators.listKeys();
  }

  revokeKey(id: string): Promise<boolean> {
    return this.#store.operators.revokeKey(id, this.#iso());
  }

  /**
   * The operator a bearer operator key belongs to; null for anything else. Keys carry 256 random
   * bits, so an unsalted SHA-256 looked up by equality is enough (as for API tokens).
   */
  async verifyKey(
    authorization: string | undefined,
  ): Promise<{ operator: Operator; key: OperatorKey } | null> {
    const raw = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '')?.[1];
    if (raw === undefined || !KEY.test(raw)) return null;
    const key = await this.#store.operators.findKeyByHash(sha256(raw));
    if (!key || key.revokedAt !== null) return null;
    const operator = await this.#store.operators.findById(key.operatorId);
    if (!operator) return null;
    const now = this.#now();
    if (key.lastUsedAt === null || now - Date.parse(key.lastUsedAt) >= 60_000) {
      await this.#store.operators.touchKey(key.id, this.#iso());
    }
    return { operator, key };
  }
}
