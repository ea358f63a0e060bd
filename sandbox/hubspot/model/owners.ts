import type { Owner } from './types.ts';

/** Owners of the portal (served by the Owners API, referenced by `hubspot_owner_id`). */
export class OwnerStore {
  #owners = new Map<string, Owner>();

  load(owners: Owner[]): void {
    for (const o of owners) this.#owners.set(o.id, structuredClone(o));
  }

  /** Owners in id order; archived ones only when `archived: true`. */
  list(options: { archived?: boolean } = {}): Owner[] {
    const want = options.archived ?? false;
    return [...this.#owners.values()].filter((o) => o.archived === want).map((o) => structuredClone(o));
  }

  get(id: string, options: { archived?: boolean } = {}): Owner | undefined {
    const o = this.#owners.get(id);
    return o === undefined || o.archived !== (options.archived ?? false) ? undefined : structuredClone(o);
  }

  getByUserId(userId: number, options: { archived?: boolean } = {}): Owner | undefined {
    // Every audited write asks for the API user: clone the one owner found, not all of them.
    const want = options.archived ?? false;
    for (const o of this.#owners.values()) {
      if (o.archived === want && o.userId === userId) return structuredClone(o);
    }
    return undefined;
  }

  /** Every field of the store, for the sandbox's persistence (`sandbox/shared/persist.ts`). */
  exportState() {
    return { owners: this.#owners };
  }

  importState(state: unknown): void {
    const saved = state as ReturnType<OwnerStore['exportState']>;
    this.#owners = saved.owners;
  }
}
