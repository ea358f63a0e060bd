import type { CrmSession } from '../adapter.ts';

export interface HubSpotGetResult {
  /** One entry per id passed, in order; `null` where no record exists. */
  data: Array<Record<string, unknown> | null>;
  /** HubSpot's own per-id error entries, and ids that cannot be HubSpot ids; absent when none. */
  errors?: unknown[];
}

/** HubSpot's get (spec 4.2): object names resolved, properties chosen, one paced batch/read call. */
export interface HubSpotObjectsFacet {
  get(
    session: CrmSession,
    objectName: string,
    input: { ids: string[]; fields?: string[] | undefined },
    limiter: { run<T>(fn: () => Promise<T>): Promise<T> },
  ): Promise<HubSpotGetResult>;
  /**
   * Runs a call sent by the caller (`path`: the target's path, to tell search from the rest) in the
   * connection's pacing; 429s are not retried, only make the connection's other calls wait.
   */
  paced<T>(
    connectionId: string,
    path: string,
    send: () => Promise<T>,
    headOf: (answer: T) => { status: number; headers: Record<string, string | string[] | undefined> },
  ): Promise<T>;
}
