// Sign-in limits that bound password guessing without letting anyone lock the owner out: failed
// attempts only are counted, per client address and per account for browsers the account does
// not know, and per browser for each browser that signed in to the account before (a signed
// "device cookie", after OWASP's device cookies): failures from elsewhere never use up its own
// allowance. The console signs the device cookie with its cookie keys (@fastify/cookie) and hands
// the guard only a value whose signature held. The counters are in this instance's memory.
import { randomBytes } from 'node:crypto';
import { TokenBuckets } from '../lib/shared-state.ts';

/**
 * The documented numbers (docs/console.md): `burst` failures at once, then one more each
 * `refillMs`; a device cookie is honoured `deviceMaxAgeMs` after the sign-in that issued it.
 */
export const SIGN_IN_LIMITS = {
  perAddress: { burst: 10, refillMs: 6_000 },
  perAccount: { burst: 5, refillMs: 180_000 },
  perKnownBrowser: { burst: 10, refillMs: 180_000 },
  deviceMaxAgeMs: 180 * 86_400_000,
};

export type SignInCheck =
  | { allowed: true; knownBrowser: string | null }
  | { allowed: false; retryAfterSeconds: number };

export class SignInGuard {
  readonly #now: () => number;
  // Failures only are counted: each one takes a token.
  readonly #address: TokenBuckets;
  readonly #account: TokenBuckets;
  readonly #browser: TokenBuckets;

  constructor(opts: { now: () => number }) {
    this.#now = opts.now;
    this.#address = new TokenBuckets(SIGN_IN_LIMITS.perAddress);
    this.#account = new TokenBuckets(SIGN_IN_LIMITS.perAccount);
    this.#browser = new TokenBuckets(SIGN_IN_LIMITS.perKnownBrowser);
  }

  /**
   * Whether an attempt may be made now. A browser with a device cookie for this account (its value,
   * its signature checked) is limited by its own counter only; any other by the address's and the account's.
   */
  check(address: string, email: string, deviceCookie: string | undefined): SignInCheck {
    const now = this.#now();
    const device = this.#knownBrowser(email, deviceCookie, now);
    const waitMs =
      device !== null
        ? this.#browser.waitMs(device, now)
        : Math.max(this.#address.waitMs(address, now), this.#account.waitMs(email, now));
    const wait = Math.ceil(waitMs / 1000);
    return wait > 0 ? { allowed: false, retryAfterSeconds: wait } : { allowed: true, knownBrowser: device };
  }

  /** Counts a failed attempt where `check` said it would be counted. */
  failed(address: string, email: string, check: SignInCheck): void {
    if (!check.allowed) return;
    const now = this.#now();
    if (check.knownBrowser !== null) {
      this.#browser.take(check.knownBrowser, now);
      return;
    }
    this.#address.take(address, now);
    this.#account.take(email, now);
  }

  /** The value of a device cookie for this browser and account, issued on a successful sign-in. */
  issueDevice(email: string): string {
    return `${Buffer.from(email).toString('base64url')}.${this.#now().toString(36)}.${randomBytes(16).toString('base64url')}`;
  }

  /** The browser's id (its cookie's nonce) when the cookie is for this account, and not too old. */
  #knownBrowser(email: string, cookie: string | undefined, now: number): string | null {
    if (cookie === undefined || cookie.length > 600) return null;
    const parts = cookie.split('.');
    if (parts.length !== 3) return null;
    const [who, issued, nonce] = parts as [string, string, string];
    if (Buffer.from(who, 'base64url').toString() !== email) return null;
    const at = Number.parseInt(issued, 36);
    if (!Number.isFinite(at) || now - at > SIGN_IN_LIMITS.deviceMaxAgeMs) return null;
    return nonce;
  }
}
