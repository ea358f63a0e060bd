import type { WriteListener } from './audit-log.ts';
import type { PropertyDefinition, PropertyGroup } from './types.ts';

/** What a caller may set when creating a property (HubSpot's `PropertyCreate`, already validated). */
export type PropertyInput = Pick<PropertyDefinition, 'name' | 'label' | 'type' | 'fieldType' | 'groupName'> &
  Partial<Omit<PropertyDefinition, 'name' | 'label' | 'type' | 'fieldType' | 'groupName'>>;

/** What a caller may change on a property (HubSpot's `PropertyUpdate`, already validated). */
export type PropertyPatch = Partial<Omit<PropertyDefinition, 'name' | 'hubspotDefined' | 'createdAt'>>;

export interface GroupInput {
  name: string;
  label: string;
  displayOrder?: number;
}

interface TypeProperties {
  properties: Map<string, PropertyDefinition>;
  groups: Map<string, PropertyGroup>;
}

/**
 * Property definitions and property groups per object type id. Plain storage: the Properties API
 * routes apply HubSpot's validation rules (type/fieldType pairs, options, name format) before calling.
 * Returned objects are copies; change them through `update`.
 */
export class PropertyRegistry {
  #byType = new Map<string, TypeProperties>();
  #now: () => string;
  /** Told of each property created, changed or archived through the API (the portal's audit log). */
  onWrite: WriteListener | undefined;

  constructor(now: () => string) {
    this.#now = now;
  }

  #type(objectTypeId: string): TypeProperties {
    let t = this.#byType.get(objectTypeId);
    if (t === undefined) {
      t = { properties: new Map(), groups: new Map() };
      this.#byType.set(objectTypeId, t);
    }
    return t;
  }

  /** Stores definitions as given (seeding and schema creation). */
  load(objectTypeId: string, properties: PropertyDefinition[], groups: PropertyGroup[]): void {
    const t = this.#type(objectTypeId);
    for (const g of groups) t.groups.set(g.name, structuredClone(g));
    for (const p of properties) t.properties.set(p.name, structuredClone(p));
  }

  /** Forgets every property and group of a type (its schema was deleted). */
  drop(objectTypeId: string): void {
    this.#byType.delete(objectTypeId);
  }

  /** Properties of a type; `archived: true` lists only archived ones, as HubSpot's `?archived=true` does. */
  list(objectTypeId: string, options: { archived?: boolean } = {}): PropertyDefinition[] {
    const wantArchived = options.archived ?? false;
    return [...this.#type(objectTypeId).properties.values()]
      .filter((p) => (p.archived ?? false) === wantArchived)
      .map((p) => structuredClone(p));
  }

  /** One property; archived ones only when `archived: true`. */
  get(
    objectTypeId: string,
    name: string,
    options: { archived?: boolean } = {},
  ): PropertyDefinition | undefined {
    const p = this.#type(objectTypeId).properties.get(name);
    if (p === undefined || (p.archived ?? false) !== (options.archived ?? false)) return undefined;
    return structuredClone(p);
  }

  /** The live definition (archived or not) without copying: for hot paths such as record validation. */
  peek(objectTypeId: string, name: string): Readonly<PropertyDefinition> | undefined {
    return this.#type(objectTypeId).properties.get(name);
  }

  /** True when a property of that name exists, archived or not (names stay taken after archiving). */
  has(objectTypeId: string, name: string): boolean {
    return this.#type(objectTypeId).properties.has(name);
  }

  /**
   * Creates a property with HubSpot's defaults for unset fields. Returns `exists` when the name is
   * taken (an archived property also keeps its name).
   */
  create(
    objectTypeId: string,
    input: PropertyInput,
    userId: string,
  ): { ok: true; property: PropertyDefinition } | { ok: false; reason: 'exists' } {
    const t = this.#type(objectTypeId);
    if (t.properties.has(input.name)) return { ok: false, reason: 'exists' };
    const now = this.#now();
    const property: PropertyDefinition = {
      description: '',
      options: [],
      displayOrder: -1,
      calculated: false,
      externalOptions: false,
      hasUniqueValue: false,
      hidden: false,
      formField: false,
      ...input,
      archived: false,
      createdUserId: userId,
      updatedUserId: userId,
      createdAt: now,
      updatedAt: now,
      modificationMetadata: { archivable: true, readOnlyDefinition: false, readOnlyValue: false },
    };
    t.properties.set(property.name, property);
    this.onWrite?.({ action: 'CREATE', objectTypeId, targetObjectId: property.name });
    return { ok: true, property: structuredClone(property) };
  }

  /** Changes a non-archived property; `undefined` when there is none of that name. */
  update(
    objectTypeId: string,
    name: string,
    patch: PropertyPatch,
    userId?: string,
  ): PropertyDefinition | undefined {
    const t = this.#type(objectTypeId);
    const current = t.properties.get(name);
    if (current === undefined || current.archived === true) return undefined;
    const next: PropertyDefinition = {
      ...current,
      ...patch,
      name,
      updatedAt: this.#now(),
      ...(userId !== undefined ? { updatedUserId: userId } : {}),
    };
    t.properties.set(name, next);
    this.onWrite?.({ action: 'UPDATE', objectTypeId, targetObjectId: name });
    return structuredClone(next);
  }

  /** Archives a property (soft delete, like HubSpot); false when there is no live one of that name. */
  archive(objectTypeId: string, name: string): boolean {
    const t = this.#type(objectTypeId);
    const current = t.properties.get(name);
    if (current === undefined || current.archived === true) return false;
    const now = this.#now();
    t.properties.set(name, { ...current, archived: true, archivedAt: now, updatedAt: now });
    this.onWrite?.({ action: 'DELETE', objectTypeId, targetObjectId: name });
    return true;
  }

  listGroups(objectTypeId: string, options: { archived?: boolean } = {}): PropertyGroup[] {
    const wantArchived = options.archived ?? false;
    return [...this.#type(objectTypeId).groups.values()]
      .filter((g) => g.archived === wantArchived)
      .map((g) => ({ ...g }));
  }

  getGroup(objectTypeId: string, name: string): PropertyGroup | undefined {
    const g = this.#type(objectTypeId).groups.get(name);
    return g === undefined || g.archived ? undefined : { ...g };
  }

  createGroup(
    objectTypeId: string,
    input: GroupInput,
  ): { ok: true; group: PropertyGroup } | { ok: false; reason: 'exists' } {
    const t = this.#type(objectTypeId);
    const existing = t.groups.get(input.name);
    if (existing !== undefined && !existing.archived) return { ok: false, reason: 'exists' };
    const group: PropertyGroup = {
      name: input.name,
      label: input.label,
      displayOrder: input.displayOrder ?? -1,
      archived: false,
    };
    t.groups.set(group.name, group);
    return { ok: true, group: { ...group } };
  }

  updateGroup(
    objectTypeId: string,
    name: string,
    patch: { label?: string; displayOrder?: number },
  ): PropertyGroup | undefined {
    const t = this.#type(objectTypeId);
    const current = t.groups.get(name);
    if (current === undefined || current.archived) return undefined;
    const next = { ...current, ...patch, name };
    t.groups.set(name, next);
    return { ...next };
  }

  archiveGroup(objectTypeId: string, name: string): boolean {
    const t = this.#type(objectTypeId);
    const current = t.groups.get(name);
    if (current === undefined || current.archived) return false;
    t.groups.set(name, { ...current, archived: true });
    return true;
  }

  /** Every field of the store, for the sandbox's persistence (`sandbox/shared/persist.ts`). */
  exportState() {
    return { byType: this.#byType };
  }

  importState(state: unknown): void {
    const saved = state as ReturnType<PropertyRegistry['exportState']>;
    this.#byType = saved.byType;
  }
}
