import { ChangeSet, type JournalChanges } from '../../shared/persist.ts';

/** One association type between two object types, as the v4 API names it (`AssociationSpecWithLabel`). */
export interface AssociationType {
  category: 'HUBSPOT_DEFINED' | 'USER_DEFINED';
  typeId: number;
  label: string | null;
}

/**
 * HubSpot-defined association type ids, `[from, to, typeId, inverse typeId, label]` (HubSpot's
 * "association type id values" table); `Primary` types carry their label.
 * https://developers.hubspot.com/docs/api-reference/latest/crm/associations/guide
 */
const DEFINED: Array<[string, string, number, number, string | null]> = [
  ['0-1', '0-2', 279, 280, null],
  ['0-1', '0-2', 1, 2, 'Primary'],
  ['0-3', '0-1', 3, 4, null],
  ['0-3', '0-2', 341, 342, null],
  ['0-3', '0-2', 5, 6, 'Primary'],
  ['0-5', '0-1', 16, 15, null],
  ['0-5', '0-2', 339, 340, null],
  ['0-5', '0-2', 26, 25, 'Primary'],
  ['0-3', '0-5', 27, 28, null],
  // Engagements: notes, calls, emails, meetings, tasks with contacts, companies, deals, tickets.
  ['0-46', '0-1', 201, 202, null],
  ['0-46', '0-2', 189, 190, null],
  ['0-46', '0-3', 213, 214, null],
  ['0-46', '0-5', 227, 228, null],
  ['0-48', '0-1', 193, 194, null],
  ['0-48', '0-2', 181, 182, null],
  ['0-48', '0-3', 205, 206, null],
  ['0-48', '0-5', 219, 220, null],
  ['0-49', '0-1', 197, 198, null],
  ['0-49', '0-2', 185, 186, null],
  ['0-49', '0-3', 209, 210, null],
  ['0-49', '0-5', 223, 224, null],
  ['0-47', '0-1', 199, 200, null],
  ['0-47', '0-2', 187, 188, null],
  ['0-47', '0-3', 211, 212, null],
  ['0-47', '0-5', 225, 226, null],
  ['0-27', '0-1', 203, 204, null],
  ['0-27', '0-2', 191, 192, null],
  ['0-27', '0-3', 215, 216, null],
  ['0-27', '0-5', 229, 230, null],
];

/** User-defined labels get ids from here up (HubSpot numbers them per portal). */
const FIRST_USER_TYPE_ID = 1_000;

const pair = (from: string, to: string) => `${from}>${to}`;
const end = (typeId: string, id: string) => `${typeId}:${id}`;

/**
 * Association types per pair of object types, and the associations between records. Every
 * association is stored both ways (HubSpot keeps the inverse type on the other record).
 */
export class AssociationStore {
  #types = new Map<string, AssociationType[]>();
  /** Type id → its inverse, for every type. */
  #inverse = new Map<number, number>();
  /** `from end` → `to end` → type ids. */
  #links = new Map<string, Map<string, Set<number>>>();
  #nextTypeId = FIRST_USER_TYPE_ID;
  /** Record ends whose links changed since the last save (`sandbox/shared/persist.ts`). */
  readonly #changes = new ChangeSet();
  /** Type id → the name a custom object's association definition gave it (v3 names a type by it). */
  #names = new Map<number, string>();

  constructor() {
    for (const [from, to, id, inverse, label] of DEFINED) {
      this.#add(from, to, { category: 'HUBSPOT_DEFINED', typeId: id, label });
      this.#add(to, from, { category: 'HUBSPOT_DEFINED', typeId: inverse, label });
      this.#inverse.set(id, inverse);
      this.#inverse.set(inverse, id);
    }
  }

  #add(from: string, to: string, type: AssociationType): void {
    const list = this.#types.get(pair(from, to)) ?? [];
    list.push(type);
    this.#types.set(pair(from, to), list);
  }

  /** The types from one object type to another, HubSpot-defined first. */
  types(from: string, to: string): AssociationType[] {
    return (this.#types.get(pair(from, to)) ?? []).map((t) => ({ ...t }));
  }

  /**
   * The pair's unlabelled type, used by `associate/default`: HubSpot's own where it defines one,
   * else the one a custom object's association definition made (user-defined, without a label).
   */
  defaultType(from: string, to: string): AssociationType | undefined {
    const unlabelled = this.types(from, to).filter((t) => t.label === null);
    return unlabelled.find((t) => t.category === 'HUBSPOT_DEFINED') ?? unlabelled[0];
  }

  /**
   * The types of a custom object's association definition (schema `associatedObjects`, or
   * `POST /crm/v3/schemas/{objectType}/associations`): one unlabelled USER_DEFINED type each way,
   * whose ids the definitions carry. Answers [from → to, to → from].
   */
  definePair(from: string, to: string, name?: string): [AssociationType, AssociationType] {
    const forward: AssociationType = { category: 'USER_DEFINED', typeId: this.#nextTypeId++, label: null };
    const back: AssociationType = { category: 'USER_DEFINED', typeId: this.#nextTypeId++, label: null };
    this.#add(from, to, forward);
    this.#add(to, from, back);
    this.#inverse.set(forward.typeId, back.typeId);
    this.#inverse.set(back.typeId, forward.typeId);
    if (name !== undefined) {
      this.#names.set(forward.typeId, name);
      this.#names.set(back.typeId, name);
    }
    return [{ ...forward }, { ...back }];
  }

  /** The name a custom object's association definition gave a type, if any. */
  nameOf(typeId: number): string | undefined {
    return this.#names.get(typeId);
  }

  /** A user-defined label of the pair (renamed or deleted through the labels endpoint), or undefined. */
  #userLabel(from: string, to: string, typeId: number): AssociationType | undefined {
    return (this.#types.get(pair(from, to)) ?? []).find(
      (t) => t.typeId === typeId && t.category === 'USER_DEFINED' && t.label !== null,
    );
  }

  /** Renames a user-defined label (and its inverse when `inverseLabel` is given); false when there is none. */
  renameLabel(from: string, to: string, typeId: number, label: string, inverseLabel?: string): boolean {
    const type = this.#userLabel(from, to, typeId);
    if (type === undefined) return false;
    type.label = label;
    const inverseId = this.#inverse.get(typeId);
    if (inverseLabel !== undefined && inverseId !== undefined && inverseId !== typeId) {
      const back = (this.#types.get(pair(to, from)) ?? []).find((t) => t.typeId === inverseId);
      if (back !== undefined) back.label = inverseLabel;
    }
    return true;
  }

  /** Deletes a user-defined label, its inverse, and every association of either type; false when there is none. */
  deleteLabel(from: string, to: string, typeId: number): boolean {
    if (this.#userLabel(from, to, typeId) === undefined) return false;
    this.#drop(from, to, typeId);
    return true;
  }

  /** Deletes the types of a custom object's association definition (either direction's id). */
  deletePair(from: string, to: string, typeId: number): boolean {
    const found = [...this.types(from, to), ...this.types(to, from)].some(
      (t) => t.typeId === typeId && t.category === 'USER_DEFINED',
    );
    if (found) this.#drop(from, to, typeId);
    return found;
  }

  #drop(from: string, to: string, typeId: number): void {
    const gone = new Set([typeId, this.#inverse.get(typeId) ?? typeId]);
    for (const key of [pair(from, to), pair(to, from)]) {
      const list = this.#types.get(key);
      if (list !== undefined)
        this.#types.set(
          key,
          list.filter((t) => !gone.has(t.typeId)),
        );
    }
    for (const id of gone) {
      this.#inverse.delete(id);
      this.#names.delete(id);
    }
    for (const out of this.#links.values()) {
      for (const [target, ids] of out) {
        for (const id of gone) ids.delete(id);
        if (ids.size === 0) out.delete(target);
      }
    }
  }

  /** A new label (and its inverse label, or the same one when the pair's two ends are one type). */
  defineLabel(from: string, to: string, label: string, inverseLabel: string | undefined): AssociationType[] {
    const forward: AssociationType = { category: 'USER_DEFINED', typeId: this.#nextTypeId++, label };
    this.#add(from, to, forward);
    const back: AssociationType = {
      category: 'USER_DEFINED',
      typeId: this.#nextTypeId++,
      label: inverseLabel ?? label,
    };
    this.#add(to, from, back);
    this.#inverse.set(forward.typeId, back.typeId);
    this.#inverse.set(back.typeId, forward.typeId);
    return inverseLabel === undefined ? [forward] : [forward, back];
  }

  associate(from: string, fromId: string, to: string, toId: string, typeId: number): void {
    this.#link(end(from, fromId), end(to, toId), typeId);
    const inverse = this.#inverse.get(typeId);
    if (inverse !== undefined) this.#link(end(to, toId), end(from, fromId), inverse);
  }

  #link(a: string, b: string, typeId: number): void {
    const out = this.#links.get(a) ?? new Map<string, Set<number>>();
    const types = out.get(b) ?? new Set<number>();
    types.add(typeId);
    out.set(b, types);
    this.#links.set(a, out);
    this.#changes.mark(a);
  }

  /** The object type a type id leads to from `from` (create bodies name only the type id). */
  targetOf(from: string, typeId: number): string | undefined {
    for (const [key, list] of this.#types) {
      const [a, b] = key.split('>');
      if (a === from && list.some((t) => t.typeId === typeId)) return b;
    }
    return undefined;
  }

  /** Removes the given types between two records (and their inverses on the other record). */
  removeTypes(from: string, fromId: string, to: string, toId: string, typeIds: number[]): void {
    const drop = (a: string, b: string, ids: number[]) => {
      const out = this.#links.get(a);
      const set = out?.get(b);
      if (out === undefined || set === undefined) return;
      this.#changes.mark(a);
      for (const id of ids) set.delete(id);
      if (set.size === 0) out.delete(b);
    };
    drop(end(from, fromId), end(to, toId), typeIds);
    const inverse = typeIds.flatMap((id) => {
      const inv = this.#inverse.get(id);
      return inv === undefined ? [] : [inv];
    });
    drop(end(to, toId), end(from, fromId), inverse);
  }

  /** Removes every association between the two records, both ways. */
  remove(from: string, fromId: string, to: string, toId: string): void {
    this.#links.get(end(from, fromId))?.delete(end(to, toId));
    this.#links.get(end(to, toId))?.delete(end(from, fromId));
    this.#changes.mark(end(from, fromId));
    this.#changes.mark(end(to, toId));
  }

  /** Records of type `to` associated with one record, with the types of each association. */
  of(from: string, fromId: string, to: string): Array<{ toObjectId: string; types: AssociationType[] }> {
    const known = new Map(this.types(from, to).map((t) => [t.typeId, t]));
    const out: Array<{ toObjectId: string; types: AssociationType[] }> = [];
    for (const [target, ids] of this.#links.get(end(from, fromId)) ?? []) {
      if (!target.startsWith(`${to}:`)) continue;
      const types = [...ids].flatMap((id) => {
        const t = known.get(id);
        return t === undefined ? [] : [{ ...t }];
      });
      if (types.length > 0) out.push({ toObjectId: target.slice(to.length + 1), types });
    }
    return out.sort((a, b) => Number(a.toObjectId) - Number(b.toObjectId));
  }

  /** Every field of the store, for the sandbox's persistence (`sandbox/shared/persist.ts`). */
  exportState() {
    return {
      types: this.#types,
      inverse: this.#inverse,
      links: this.#links,
      nextTypeId: this.#nextTypeId,
      names: this.#names,
    };
  }

  importState(state: unknown): void {
    const saved = state as ReturnType<AssociationStore['exportState']>;
    this.#types = saved.types;
    this.#inverse = saved.inverse;
    this.#links = saved.links;
    this.#nextTypeId = saved.nextTypeId;
    this.#names = saved.names ?? new Map();
    this.#changes.markAll();
  }

  /** Kept whole on each save; the links are kept one record end at a time. */
  journalHead() {
    return { types: this.#types, inverse: this.#inverse, nextTypeId: this.#nextTypeId, names: this.#names };
  }

  journalChanges(): JournalChanges {
    return this.#changes.take(
      (key) => this.#links.get(key),
      () => this.#links,
    );
  }

  journalLoad(head: unknown, entries: Array<[string, unknown]>): void {
    const saved = head as ReturnType<AssociationStore['journalHead']>;
    this.#types = saved.types;
    this.#inverse = saved.inverse;
    this.#nextTypeId = saved.nextTypeId;
    this.#links = new Map(entries as Array<[string, Map<string, Set<number>>]>);
    this.#names = saved.names ?? new Map();
    this.#changes.clear();
  }
}
