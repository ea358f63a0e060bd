// Operator accounts and their lifecycle, console sessions and operator API keys.
import { createHash, randomBytes } from 'node:crypto';
import { randomBase62 } from '../crypto/random.ts';
import type { OperatorWithHash } from '../store/rows.ts';
import type { Operator, OperatorKey, OperatorSession, Store } from '../store/types.ts';
import { decoyHash, hashPassword, passwordProblem, verifyPassword } from './passwords.ts';

const SESSION_ABSOLUTE_MS = 12 * 3600_000;
const SESSION_IDLE_MS = 60 * 60_000;

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const KEY = /^crmpk_[0-9A-Za-z]{43}$/;
const SESSION_ID = /^[0-9a-f]{64}$/;

export interface SignedIn {
  operator: Operator;
  session: OperatorSession;
}

/** A signed-in operator (console), or someone with the store at hand (CLI, by system user). */
export type Actor = { operator: Operator } | { cli: string };

export const actorName = (actor: Actor): string =>
  'operator' in actor ? actor.operator.id : `cli:${actor.cli}`;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const withoutHash = ({ passwordHash: _h, ...operator }: OperatorWithHash): Operator => operator;

/** Why an operator action was refused; `status` is the HTTP status the console answers with. */
export class OperatorError extends Error {
  readonly field: string;
  readonly status: number;
  constructor(field: string, message: string, status = 400) {
    super(message);
    this.field = field;
    this.status = status;
    this.name = 'OperatorError';
  }
}

/** Lifecycle changes run one at a time across instances, for the last-manager rule. */
const LIFECYCLE_LOCK = 'operators:lifecycle';

export class OperatorService {
  readonly #store: Store;
  readonly #now: () => number;
  /** The console's cookie keys (the first signs, all check); without a keyring (CLI), a random one. */
  readonly cookieKeys: readonly Buffer[];

  constructor(opts: {
    store: Store;
    now: () => number;
    cookieKeys?: readonly Buffer[];
  }) {
    this.#store = opts.store;
    this.#now = opts.now;
    this.cookieKeys = opts.cookieKeys?.length ? opts.cookieKeys : [randomBytes(32)];
  }

  #iso(offsetMs = 0): string {
    return new Date(this.#now() + offsetMs).toISOString();
  }

  /** The one way every client creates an operator; the first one always manages the others. */
  async create(email: string, password: string, options: { canManage?: boolean } = {}): Promise<Operator> {
    const normalized = email.trim().toLowerCase();
    if (!EMAIL.test(normalized) || normalized.length > 200)
      throw new OperatorError('email', 'email must look like name@example.com (at most 200 characters)');
    const problem = await passwordProblem(password);
    if (problem !== null) throw new OperatorError('password', problem);
    if (await this.#store.operators.findByEmail(normalized)) {
      throw new OperatorError('email', `an operator ${normalized} exists already`, 409);
    }
    const first = (await this.#store.operators.list()).length === 0;
    return this.#store.operators.insert({
      id: `op_${randomBase62(16)}`,
      email: normalized,
      passwordHash: await hashPassword(password),
      now: this.#iso(),
      canManage: first || options.canManage === true,
    });
  }

  list(): Promise<Operator[]> {
    return this.#store.operators.list();
  }

  async find(emailOrId: string): Promise<Operator | null> {
    if (emailOrId.startsWith('op_')) return this.#store.operators.findById(emailOrId);
    const found = await this.#store.operators.findByEmail(emailOrId.trim().toLowerCase());
    return found === null ? null : withoutHash(found);
  }

  /** Null whichever was wrong; each case costs one password hash. */
  async checkPassword(email: string, password: string): Promise<Operator | null> {
    const found = await this.#store.operators.findByEmail(email.trim().toLowerCase());
    const ok = await verifyPassword(password, found?.passwordHash ?? (await decoyHash()));
    return !found || !ok || found.disabledAt !== null ? null : withoutHash(found);
  }

  /** The cookie value goes to the browser only; the store keeps its hash. */
  async startSession(
    operator: Operator,
    client: { address?: string | null; userAgent?: string | null } = {},
  ): Promise<{ cookieValue: string; session: OperatorSession }> {
    const cookieValue = randomBytes(32).toString('base64url');
    const session: OperatorSession = {
      idHash: sha256(cookieValue),
      operatorId: operator.id,
      csrfToken: randomBytes(32).toString('base64url'),
      createdAt: this.#iso(),
      lastSeenAt: this.#iso(),
      expiresAt: this.#iso(SESSION_ABSOLUTE_MS),
      address: client.address?.slice(0, 100) ?? null,
      userAgent: client.userAgent?.slice(0, 300) ?? null,
    };
    await this.#store.operators.insertSession(session);
    await this.#store.operators.signedIn(operator.id, session.createdAt);
    await this.#store.operators.pruneSessions(this.#iso(), this.#iso(-SESSION_IDLE_MS));
    return { cookieValue, session };
  }

  /** Read from the store on every request, so a session ended on one instance is ended on all. */
  async session(cookieValue: string | undefined): Promise<SignedIn | null> {
    if (cookieValue === undefined || !/^[A-Za-z0-9_-]{43}$/.test(cookieValue)) return null;
    const idHash = sha256(cookieValue);
    const session = await this.#store.operators.findSession(idHash);
    if (!session) return null;
    const now = this.#now();
    if (Date.parse(session.expiresAt) <= now || Date.parse(session.lastSeenAt) + SESSION_IDLE_MS <= now) {
      await this.#store.operators.deleteSession(idHash);
      return null;
    }
    const operator = await this.#store.operators.findById(session.operatorId);
    if (!operator || operator.disabledAt !== null) return null;
    // One write a minute is enough for the idle timeout.
    if (now - Date.parse(session.lastSeenAt) >= 60_000) {
      await this.#store.operators.touchSession(idHash, this.#iso());
    }
    return { operator, session };
  }

  async endSession(cookieValue: string | undefined): Promise<void> {
    if (cookieValue !== undefined) await this.#store.operators.deleteSession(sha256(cookieValue));
  }

  /** Shown once: `crmpk_` and 43 random base62 characters (256 bits). */
  async createKey(operator: Operator, label: string | null): Promise<{ key: string; record: OperatorKey }> {
    if (operator.disabledAt !== null)
      throw new OperatorError('email', `operator ${operator.email} is disabled; enable it first`);
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

  /** Keys carry 256 random bits, so an unsalted SHA-256 looked up by equality is enough. */
  async verifyKey(
    authorization: string | undefined,
  ): Promise<{ operator: Operator; key: OperatorKey } | null> {
    const raw = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '')?.[1];
    if (raw === undefined || !KEY.test(raw)) return null;
    const key = await this.#store.operators.findKeyByHash(sha256(raw));
    if (!key || key.revokedAt !== null) return null;
    const operator = await this.#store.operators.findById(key.operatorId);
    if (!operator || operator.disabledAt !== null) return null;
    const now = this.#now();
    if (key.lastUsedAt === null || now - Date.parse(key.lastUsedAt) >= 60_000) {
      await this.#store.operators.touchKey(key.id, this.#iso());
    }
    return { operator, key };
  }

  // The lifecycle: the actor must manage the others unless the action is on their own account.

  async add(actor: Actor, email: string, password: string, canManage: boolean): Promise<Operator> {
    this.#mustManage(actor);
    return this.create(email, password, { canManage });
  }

  /** Its sessions end and its keys are revoked at once. */
  async disable(actor: Actor, target: string): Promise<Operator> {
    this.#mustManage(actor);
    return this.#store.locks.withLock(LIFECYCLE_LOCK, 30_000, async () => {
      const op = await this.#target(target);
      if (op.disabledAt !== null) return op;
      await this.#keepOneManager(op, 'disable');
      await this.#store.operators.setDisabled(op.id, this.#iso());
      return (await this.#store.operators.findById(op.id)) ?? op;
    });
  }

  async enable(actor: Actor, target: string): Promise<Operator> {
    this.#mustManage(actor);
    const op = await this.#target(target);
    if (op.disabledAt === null) return op;
    await this.#store.operators.setDisabled(op.id, null);
    return (await this.#store.operators.findById(op.id)) ?? op;
  }

  /** With its sessions and keys; the last operator who can manage stays. */
  async remove(actor: Actor, target: string): Promise<Operator> {
    this.#mustManage(actor);
    return this.#store.locks.withLock(LIFECYCLE_LOCK, 30_000, async () => {
      const op = await this.#target(target);
      await this.#keepOneManager(op, 'remove');
      await this.#store.operators.remove(op.id);
      return op;
    });
  }

  /** Every session ends and every key is revoked; the caller starts a new session for the browser. */
  async changeOwnPassword(operator: Operator, current: string, next: string): Promise<void> {
    const found = await this.#store.operators.findByIdWithHash(operator.id);
    if (found === null || found.disabledAt !== null) throw notFound(operator.id);
    if (!(await verifyPassword(current, found.passwordHash)))
      throw new OperatorError('current_password', 'the current password is wrong', 403);
    if (current === next)
      throw new OperatorError('new_password', 'the new password must differ from the current one');
    await this.#setPassword(found.id, next);
  }

  /** Their sessions end and keys are revoked. */
  async resetPassword(actor: Actor, target: string, next: string): Promise<Operator> {
    this.#mustManage(actor);
    const op = await this.#target(target);
    await this.#setPassword(op.id, next);
    return op;
  }

  /** Newest first; never their cookie. */
  async listSessions(actor: Actor, operatorId?: string): Promise<OperatorSession[]> {
    this.#mustManage(actor, operatorId);
    return this.#store.operators.listSessions(operatorId);
  }

  /** By its id (the hash the store keys it by). */
  async endSessionById(actor: Actor, sessionId: string): Promise<OperatorSession> {
    const session = SESSION_ID.test(sessionId) ? await this.#store.operators.findSession(sessionId) : null;
    if (session === null) throw new OperatorError('session', `no session ${sessionId.slice(0, 80)}`, 404);
    this.#mustManage(actor, session.operatorId);
    await this.#store.operators.deleteSession(session.idHash);
    return session;
  }

  async endSessions(actor: Actor, target: string): Promise<number> {
    const op = await this.#target(target);
    this.#mustManage(actor, op.id);
    return this.#store.operators.deleteSessions(op.id);
  }

  async #setPassword(id: string, password: string): Promise<void> {
    const problem = await passwordProblem(password);
    if (problem !== null) throw new OperatorError('new_password', problem);
    if (!(await this.#store.operators.setPassword(id, await hashPassword(password), this.#iso())))
      throw notFound(id);
  }

  #mustManage(actor: Actor, operatorId?: string): void {
    if ('cli' in actor || actor.operator.id === operatorId) return;
    if (!actor.operator.canManage || actor.operator.disabledAt !== null)
      throw new OperatorError('operator', 'only operators who manage others may do this', 403);
  }

  async #target(emailOrId: string): Promise<Operator> {
    const op = await this.find(emailOrId);
    if (op === null) throw notFound(emailOrId);
    return op;
  }

  async #keepOneManager(op: Operator, what: 'disable' | 'remove'): Promise<void> {
    const all = await this.#store.operators.list();
    if (what === 'remove' && all.length === 1)
      throw new OperatorError('operator', 'the last operator cannot be removed', 409);
    const managers = all.filter((o) => o.canManage && o.disabledAt === null && o.id !== op.id);
    if (op.canManage && op.disabledAt === null && managers.length === 0)
      throw new OperatorError(
        'operator',
        `${op.email} is the last enabled operator who can manage the others, so it cannot be ${what === 'remove' ? 'removed' : 'disabled'}; add or enable another first`,
        409,
      );
  }
}

function notFound(what: string): OperatorError {
  return new OperatorError('operator', `no operator ${what.slice(0, 200)}`, 404);
}
