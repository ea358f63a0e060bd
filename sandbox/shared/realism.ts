import { createRng, type Rng } from './rng.ts';

/**
 * Faults a sandbox can inject. Generic ones are handled by the shared server hook; the
 * provider renders the error ones in its own wire format (Salesforce's UNABLE_TO_LOCK_ROW,
 * HubSpot's 429 body, ...).
 * - `error500` / `error503`: the CRM's server error answer.
 * - `lock`: a row-lock failure (Salesforce UNABLE_TO_LOCK_ROW; HubSpot answers 423/409-like conflicts as 500).
 * - `rateLimit`: the CRM's rate-limit answer.
 * - `expireToken`: the bearer token is treated as expired for this call (the CRM's 401).
 * - `drop`: the TCP connection is destroyed without an answer, before the call is handled.
 * - `drop_answer`: the call is handled (a write is applied), then the connection is destroyed
 *   instead of sending the answer: the client cannot tell whether it was applied.
 * - `slow`: the answer is held back `slowMs` (past a client's timeout) and then sent normally.
 */
export const FAULT_KINDS = [
  'error500',
  'error503',
  'lock',
  'rateLimit',
  'expireToken',
  'drop',
  'drop_answer',
  'slow',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface ScriptedFault {
  kind: FaultKind;
  /** Call kind this fault applies to: exact (`rest.query`) or a prefix (`collections`). Any call when absent. */
  match?: string;
  /** How many matching calls get this fault (default 1). */
  times?: number;
  /** Matching calls to let through before the fault starts (default 0). */
  skip?: number;
}

export interface RealismConfig {
  /** Fixed latency added to every call, in ms. */
  latencyMs: number;
  /** Uniform random extra latency in [0, latencyJitterMs), from the seeded RNG. */
  latencyJitterMs: number;
  /** Latency per record for calls that carry records (collections, batches, bulk processing). */
  perRecordMs: number;
  /** How long a `slow` fault holds the answer back. */
  slowMs: number;
  /** Probability per call of a random fault, drawn from `randomFaultKinds`. */
  randomFaultRate: number;
  randomFaultKinds: FaultKind[];
  /** Seed of the RNG behind jitter and random faults. */
  seed: number;
}

export const DEFAULT_REALISM: RealismConfig = {
  latencyMs: 0,
  latencyJitterMs: 0,
  perRecordMs: 0,
  slowMs: 30_000,
  randomFaultRate: 0,
  randomFaultKinds: ['error503'],
  seed: 42,
};

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve());

interface ActiveFault {
  kind: FaultKind;
  match: string | undefined;
  remaining: number;
  skip: number;
}

/** Latency and fault injection of one sandbox instance; changed at run time through the control API. */
export class Realism {
  #config: RealismConfig;
  #rng: Rng;
  #script: ActiveFault[] = [];

  constructor(config: Partial<RealismConfig> = {}) {
    this.#config = { ...DEFAULT_REALISM, ...config };
    this.#rng = createRng(this.#config.seed);
  }

  get config(): RealismConfig {
    return { ...this.#config, randomFaultKinds: [...this.#config.randomFaultKinds] };
  }

  update(partial: Partial<RealismConfig>): RealismConfig {
    this.#config = { ...this.#config, ...partial };
    if (partial.seed !== undefined) this.#rng = createRng(partial.seed);
    return this.config;
  }

  /** Queue scripted faults; they fire in order on the matching calls. */
  script(faults: ScriptedFault[]): void {
    for (const f of faults) {
      this.#script.push({ kind: f.kind, match: f.match, remaining: f.times ?? 1, skip: f.skip ?? 0 });
    }
  }

  clearFaults(): void {
    this.#script = [];
  }

  pendingFaults(): ScriptedFault[] {
    return this.#script.map((f) => ({
      kind: f.kind,
      times: f.remaining,
      skip: f.skip,
      ...(f.match !== undefined ? { match: f.match } : {}),
    }));
  }

  reset(): void {
    this.#config = { ...DEFAULT_REALISM };
    this.#rng = createRng(this.#config.seed);
    this.#script = [];
  }

  /** The fault for this call, if any: scripted faults first, then the random rate. */
  nextFault(callKind: string): FaultKind | null {
    for (const f of this.#script) {
      if (f.match !== undefined && callKind !== f.match && !callKind.startsWith(`${f.match}.`)) continue;
      if (f.skip > 0) {
        f.skip -= 1;
        return null;
      }
      f.remaining -= 1;
      if (f.remaining <= 0) this.#script.splice(this.#script.indexOf(f), 1);
      return f.kind;
    }
    const c = this.#config;
    if (c.randomFaultRate > 0 && c.randomFaultKinds.length > 0 && this.#rng.next() < c.randomFaultRate) {
      return this.#rng.pick(c.randomFaultKinds);
    }
    return null;
  }

  /** Per-call latency (fixed + seeded jitter). */
  async callDelay(): Promise<void> {
    const c = this.#config;
    const jitter = c.latencyJitterMs > 0 ? this.#rng.next() * c.latencyJitterMs : 0;
    await sleep(c.latencyMs + jitter);
  }

  /** Per-record latency for a call that carries `records` records. */
  async recordDelay(records: number): Promise<void> {
    await sleep(this.#config.perRecordMs * records);
  }

  /** Holds a call for `slowMs`, or until `endSlowCalls`. */
  async slowDelay(): Promise<void> {
    const ms = this.#config.slowMs;
    if (ms <= 0) return;
    const held = this.#held;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(end, ms);
      held.add(end);
      function end() {
        clearTimeout(timer);
        held.delete(end);
        resolve();
      }
    });
  }

  /** Lets every call a `slow` fault holds go on now (at close, or when a test is done holding). */
  endSlowCalls(): void {
    for (const end of [...this.#held]) end();
  }

  readonly #held = new Set<() => void>();
}
