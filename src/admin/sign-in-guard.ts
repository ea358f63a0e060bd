// Sign-in limits that bound password guessing without letting anyone lock the owner out: failures
// are counted per address and account, but a browser that signed in before (OWASP device cookie,
// signed by the console) has its own allowance. The counters are in this instance's memory.
import { randomBytes } from 'node:crypto';
import { TokenBuckets } from '../lib/shared-state.ts';

/** As documented in docs/console.md: `burst` failures, then one more each `refillMs`. */
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
  readonly #address: TokenBuckets;
  readonly #account: TokenBuckets;
  readonly #browser: TokenBuckets;

  constructor(opts: { now: () => number }) {
    this.#now = opts.now;
    this.#address = new TokenBuckets(SIGN_IN_LIMITS.perAddress);
    this.#account = new TokenBuckets(SIGN_IN_LIMITS.perAccount);
    this.#browser = new TokenBuckets(SIGN_IN_LIMITS.perKnownBrowser);
  }

  /** A browser with a device cookie for this account is limited by its own counter only. */
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

  /** Issued on a successful sign-in. */
  issueDevice(email: string): string {
    return `${Buffer.from(email).toString('base64url')}.${this.#now().toString(36)}.${randomBytes(16).toString('base64url')}`;
  }

  /** The cookie's nonce when it is for this account and not too old. */
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
