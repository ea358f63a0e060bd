import type { Clock } from '../../lib/clock.ts';
import { SingleFlight } from '../../lib/single-flight.ts';
import type { AnswerHead, CrmSession } from '../adapter.ts';
import { headerValue, parseJson } from '../client/types.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

const API_USAGE = /(?:^|[,\s])api-usage=(\d+)\/(\d+)/;

/** The org's daily API allowance (used in 24 hours / limit) from `Sforce-Limit-Info: api-usage=18/15000`. */
export function readLimitInfo(headers: AnswerHead['headers']): { used: number; limit: number } | undefined {
  const value = headerValue(headers, 'sforce-limit-info');
  const m = value === undefined ? null : API_USAGE.exec(value);
  if (m === null) return undefined;
  const used = Number(m[1]);
  const limit = Number(m[2]);
  return Number.isSafeInteger(used) && Number.isSafeInteger(limit) && limit > 0 ? { used, limit } : undefined;
}

/** An org's daily API allowance: requests used in the last 24 hours, its limit, and when it was read. */
export interface OrgAllowance {
  used: number;
  limit: number;
  at: number;
}

const FRESH_MS = SALESFORCE_PROFILE.allowanceFreshMs;

/** Each connection's allowance, from every answer's header; `current` asks `/limits` when none is fresh. */
export class AllowanceBook {
  readonly #book = new Map<string, OrgAllowance>();
  readonly #loads = new SingleFlight<OrgAllowance | undefined>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** The same session, with what every answer's headers say of the allowance recorded. */
  observing(session: CrmSession): CrmSession {
    return {
      connectionId: session.connectionId,
      baseUrl: session.baseUrl,
      send: async (request) => {
        const response = await session.send(request);
        const info = readLimitInfo(response.headers);
        if (info !== undefined) this.#book.set(session.connectionId, { ...info, at: this.#clock.now() });
        return response;
      },
    };
  }

  /** The last allowance seen for a connection, however old; undefined when none. */
  latest(connectionId: string): OrgAllowance | undefined {
    return this.#book.get(connectionId);
  }

  /** The connection's fresh allowance, else from `/limits`; undefined when that cannot be read either. */
  async current(session: CrmSession, api: string): Promise<OrgAllowance | undefined> {
    const seen = this.#book.get(session.connectionId);
    if (seen !== undefined && this.#clock.now() - seen.at < FRESH_MS) return seen;
    return this.#loads.run(session.connectionId, async () => {
      try {
        const response = await this.observing(session).send({
          method: 'GET',
          url: `${api}/limits`,
          idempotent: true,
          label: 'salesforce.limits',
        });
        const body = parseJson<{ DailyApiRequests?: { Max?: unknown; Remaining?: unknown } }>(response);
        const { Max: max, Remaining: remaining } = body?.DailyApiRequests ?? {};
        if (response.status === 200 && typeof max === 'number' && typeof remaining === 'number' && max > 0) {
          const read = { used: Math.max(0, max - remaining), limit: max, at: this.#clock.now() };
          this.#book.set(session.connectionId, read);
          return read;
        }
      } catch {
        // Unreachable or refused: the caller chooses without an allowance.
      }
      // The header of the `/limits` answer itself, if it carried one.
      const noted = this.#book.get(session.connectionId);
      return noted !== undefined && this.#clock.now() - noted.at < FRESH_MS ? noted : undefined;
    });
  }
}
