// The one-time code that lets a browser create the first operator, shown only to whoever started
// the service. Good once, for a limited time, while no operator exists; only its hash is kept.
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../crypto/random.ts';
import type { Operator } from '../store/types.ts';
import { OperatorError, type OperatorService } from './operators.ts';

const SETUP_CODE_TTL_MS = 24 * 3600_000;

/** 28 base62 characters in groups of four (≈ 167 bits): `crmps-xxxx-xxxx-…`. */
const CODE = /^crmps(-[0-9A-Za-z]{4}){7}$/;

const sha256 = (value: string): Buffer => createHash('sha256').update(value).digest();

/** A refused code: the console answers 401, or 409 once an operator exists. */
const refused = (message: string, status = 401) => new OperatorError('setup_code', message, status);

export class FirstOperatorSetup {
  readonly #operators: OperatorService;
  readonly #now: () => number;
  #hash: Buffer | null = null;
  #expiresAt = 0;
  #used = false;

  constructor(opts: { operators: OperatorService; now: () => number }) {
    this.#operators = opts.operators;
    this.#now = opts.now;
  }

  async open(): Promise<boolean> {
    return (await this.#operators.list()).length === 0;
  }

  /** A new code, replacing any earlier one; null once an operator exists. */
  async issue(): Promise<{ code: string; expiresAt: string } | null> {
    if (!(await this.open())) return null;
    const raw = randomBase62(28);
    const code = `crmps-${raw.match(/.{4}/g)?.join('-')}`;
    this.#hash = sha256(code);
    this.#expiresAt = this.#now() + SETUP_CODE_TTL_MS;
    this.#used = false;
    return { code, expiresAt: new Date(this.#expiresAt).toISOString() };
  }

  async createFirstOperator(code: string, email: string, password: string): Promise<Operator> {
    if (!(await this.open())) {
      throw refused('an operator exists already: sign in instead', 409);
    }
    const given = code.trim();
    if (this.#hash === null) {
      throw refused(
        'no setup code was issued by this instance: restart the service to get one, or create the operator on the command line',
      );
    }
    if (!CODE.test(given) || !timingSafeEqual(sha256(given), this.#hash)) {
      throw refused('that is not the setup code. Copy it again from where the service put it');
    }
    if (this.#used) throw refused('this setup code was used already');
    if (this.#now() >= this.#expiresAt)
      throw refused('this setup code has expired: restart the service for a new one');
    // Spent before the (slow) password hashing, so two racing submissions cannot both use it.
    this.#used = true;
    try {
      return await this.#operators.create(email, password);
    } catch (err) {
      // A form mistake (email, password) does not cost the code.
      if (err instanceof OperatorError) this.#used = false;
      throw err;
    }
  }
}
