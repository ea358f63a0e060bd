import type { JournalChanges } from '../../shared/persist.ts';

/**
 * The account's audit log (`GET /account-info/v3/activity/audit-logs`): one entry per user action,
 * in the order they happened. Model `PublicApiUserActionEvent` of HubSpot's Account/Audit Logs v3 spec.
 */
export interface AuditEntry {
  id: string;
  category: string;
  subCategory?: string;
  action: string;
  targetObjectId?: string;
  occurredAt: string;
  actingUser: ActingUser;
}

export interface ActingUser {
  userId: number;
  userEmail?: string;
}

/** A write a store saw, passed to its listener (the portal turns it into an audit entry). */
export interface StoreWrite {
  action: 'CREATE' | 'UPDATE' | 'DELETE';
  objectTypeId: string;
  /** Record id, property name or pipeline label. */
  targetObjectId: string;
}

export type WriteListener = (write: StoreWrite) => void;

/** Entry ids are opaque strings to clients; numeric ones from a counter keep them unique and ordered. */
const FIRST_ID = 5_400_000_001;

export class AuditLog {
  #entries: AuditEntry[] = [];
  #nextId = FIRST_ID;
  readonly #now: () => string;
  /** Entries already saved (`sandbox/shared/persist.ts`); null: none yet, every entry is new. */
  #journaled: number | null = null;

  constructor(now: () => string) {
    this.#now = now;
  }

  record(entry: Omit<AuditEntry, 'id' | 'occurredAt'> & { occurredAt?: string }): AuditEntry {
    const saved: AuditEntry = {
      id: String(this.#nextId),
      ...entry,
      occurredAt: entry.occurredAt ?? this.#now(),
    };
    this.#nextId += 1;
    this.#entries.push(saved);
    return structuredClone(saved);
  }

  /** Every entry, oldest first (ties in the order they were recorded). */
  list(): AuditEntry[] {
    return this.#entries
      .map((e, i) => [e, i] as const)
      .sort(([a, i], [b, j]) => a.occurredAt.localeCompare(b.occurredAt) || i - j)
      .map(([e]) => structuredClone(e));
  }

  /** Every field of the store, for the sandbox's persistence (`sandbox/shared/persist.ts`). */
  exportState() {
    return { entries: this.#entries, nextId: this.#nextId };
  }

  importState(state: unknown): void {
    const saved = state as ReturnType<AuditLog['exportState']>;
    this.#entries = saved.entries;
    this.#nextId = saved.nextId;
    this.#journaled = null;
  }

  /** Kept whole on each save; entries are only ever appended, and kept one by one. */
  journalHead() {
    return { nextId: this.#nextId };
  }

  journalChanges(): JournalChanges {
    const all = this.#journaled === null;
    const fresh = this.#entries.slice(this.#journaled ?? 0);
    this.#journaled = this.#entries.length;
    return { all, entries: fresh.map((e) => [e.id, e]) };
  }

  journalLoad(head: unknown, entries: Array<[string, unknown]>): void {
    this.#entries = entries.map(([, e]) => e as AuditEntry);
    this.#nextId = (head as ReturnType<AuditLog['journalHead']>).nextId;
    this.#journaled = this.#entries.length;
  }
}
