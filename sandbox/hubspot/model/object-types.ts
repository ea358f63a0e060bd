import type { ObjectTypeDefinition } from './types.ts';

/**
 * Object types of one portal. HubSpot's `{objectType}` path segment accepts the type id (`0-1`,
 * `2-3604285`), the plural path name (`contacts`), the upper-case fully qualified name (`CONTACT`,
 * seen in recorded traffic) and, for custom types, `p{portalId}_{name}` and the short `p_{name}`.
 * Names match case-insensitively.
 */
export class ObjectTypeRegistry {
  #byId = new Map<string, ObjectTypeDefinition>();
  #byAlias = new Map<string, string>();
  #nextCustomId: number;

  constructor(firstCustomId: number) {
    this.#nextCustomId = firstCustomId;
  }

  /** Adds (or replaces) a type and indexes its aliases. */
  register(type: ObjectTypeDefinition): ObjectTypeDefinition {
    this.#byId.set(type.objectTypeId, type);
    // A custom type's plain `name` is not accepted by HubSpot's object paths, only its id and `p…` names.
    for (const alias of [...(type.custom ? [] : [type.name]), type.fullyQualifiedName, ...type.aliases]) {
      this.#byAlias.set(alias.toLowerCase(), type.objectTypeId);
    }
    return type;
  }

  /** Next free custom type id (`2-<n>`) and its numeric part. */
  allocateCustomId(): { objectTypeId: string; id: string } {
    const id = String(this.#nextCustomId);
    this.#nextCustomId += 1;
    return { objectTypeId: `2-${id}`, id };
  }

  /** The type a path segment names, archived types included (callers decide what archived means). */
  resolve(ref: string): ObjectTypeDefinition | undefined {
    const direct = this.#byId.get(ref);
    if (direct !== undefined) return direct;
    const id = this.#byAlias.get(ref.toLowerCase());
    return id === undefined ? undefined : this.#byId.get(id);
  }

  /** The type a path segment names, when it is not archived. */
  resolveActive(ref: string): ObjectTypeDefinition | undefined {
    const t = this.resolve(ref);
    return t === undefined || t.archived ? undefined : t;
  }

  list(options: { custom?: boolean; archived?: boolean } = {}): ObjectTypeDefinition[] {
    return [...this.#byId.values()].filter(
      (t) =>
        (options.custom === undefined || t.custom === options.custom) &&
        (options.archived === undefined || t.archived === options.archived),
    );
  }

  /** Applies a partial change to a type's metadata; returns the updated type. */
  update(objectTypeId: string, patch: Partial<ObjectTypeDefinition>): ObjectTypeDefinition | undefined {
    const current = this.#byId.get(objectTypeId);
    if (current === undefined) return undefined;
    const next = { ...current, ...patch, objectTypeId: current.objectTypeId, id: current.id };
    this.#byId.set(objectTypeId, next);
    return next;
  }

  /** Removes a type for good (HubSpot's hard delete, `DELETE /schemas/{type}?archived=true`). */
  remove(objectTypeId: string): boolean {
    const current = this.#byId.get(objectTypeId);
    if (current === undefined) return false;
    this.#byId.delete(objectTypeId);
    for (const [alias, id] of this.#byAlias) if (id === objectTypeId) this.#byAlias.delete(alias);
    return true;
  }

  /** Every field of the store, for the sandbox's persistence (`sandbox/shared/persist.ts`). */
  exportState() {
    return { byId: this.#byId, byAlias: this.#byAlias, nextCustomId: this.#nextCustomId };
  }

  importState(state: unknown): void {
    const saved = state as ReturnType<ObjectTypeRegistry['exportState']>;
    this.#byId = saved.byId;
    this.#byAlias = saved.byAlias;
    this.#nextCustomId = saved.nextCustomId;
  }
}
