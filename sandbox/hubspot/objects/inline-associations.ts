import { associatedLive, live, specInput, v3Name } from '../associations/common.ts';
import type { HubSpotContext } from '../context.ts';
import type { ObjectTypeDefinition } from '../model/types.ts';
import { isRecord } from './http.ts';
import { listParam } from './view.ts';

/** One association a create body asks for, checked: the target type comes from the type id. */
export interface PlannedAssociation {
  to: ObjectTypeDefinition;
  toId: string;
  typeId: number;
}

const SHAPE = 'a list of {to: {id}, types: [{associationCategory, associationTypeId}]}';

/** One `associations[i]` entry of a create body, checked against the portal. */
function planOne(
  ctx: HubSpotContext,
  from: ObjectTypeDefinition,
  entry: unknown,
  at: string,
): PlannedAssociation[] | string {
  const toId = isRecord(entry) && isRecord(entry['to']) ? String(entry['to']['id'] ?? '') : '';
  const types = isRecord(entry) && Array.isArray(entry['types']) ? entry['types'] : [];
  if (toId === '' || types.length === 0)
    return `${at}: each association needs to.id and types; send ${SHAPE}.`;
  const out: PlannedAssociation[] = [];
  for (const [j, raw] of types.entries()) {
    const s = specInput(raw);
    const target =
      s === undefined ? undefined : ctx.portal.associations.targetOf(from.objectTypeId, s.typeId);
    const to = target === undefined ? undefined : ctx.portal.types.resolveActive(target);
    const known =
      s !== undefined && to !== undefined
        ? ctx.portal.associations.types(from.objectTypeId, to.objectTypeId).find((t) => t.typeId === s.typeId)
        : undefined;
    if (
      s === undefined ||
      to === undefined ||
      known === undefined ||
      (s.category !== undefined && known.category !== s.category)
    ) {
      const what =
        s === undefined
          ? 'is not {associationCategory, associationTypeId}'
          : `${s.category ?? 'any category'}/${s.typeId} is not an association type from ${from.singularName}`;
      return `${at}.types[${j}] ${what}; list the pair's types with GET /crm/v4/associations/{fromObjectType}/{toObjectType}/labels.`;
    }
    if (!live(ctx, to, toId)) return `${at}.to.id: no ${to.singularName} with id ${toId} exists.`;
    out.push({ to, toId, typeId: s.typeId });
  }
  return out;
}

/**
 * The `associations` of a create body (`PublicAssociationsForObject[]`), checked before anything
 * is written: a string names the first bad entry. HubSpot refuses the whole create in that case.
 */
export function planAssociations(
  ctx: HubSpotContext,
  from: ObjectTypeDefinition,
  raw: unknown,
): PlannedAssociation[] | string {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) return `associations must be ${SHAPE}.`;
  const out: PlannedAssociation[] = [];
  for (const [i, entry] of raw.entries()) {
    const one = planOne(ctx, from, entry, `associations[${i}]`);
    if (typeof one === 'string') return one;
    out.push(...one);
  }
  return out;
}

export function applyAssociations(
  ctx: HubSpotContext,
  from: ObjectTypeDefinition,
  fromId: string,
  plan: PlannedAssociation[],
): void {
  for (const p of plan)
    ctx.portal.associations.associate(from.objectTypeId, fromId, p.to.objectTypeId, p.toId, p.typeId);
}

type AssociationsView = Record<string, { results: { id: string; type: string }[] }>;

/**
 * `?associations=companies,deals` on a read: per asked type that has any, one `{id, type}` per
 * association type with its v3 name; unknown types are ignored like unknown properties.
 */
export function associationsView(
  ctx: HubSpotContext,
  from: ObjectTypeDefinition,
  id: string,
  raw: unknown,
): AssociationsView | undefined {
  const view: AssociationsView = {};
  for (const ref of listParam(raw) ?? []) {
    const to = ctx.portal.types.resolveActive(ref);
    if (to === undefined) continue;
    const results = associatedLive(ctx, from, id, to).flatMap((a) =>
      a.types.map((t) => ({ id: a.toObjectId, type: v3Name(ctx, from, to, t) })),
    );
    if (results.length > 0) view[to.custom ? to.fullyQualifiedName : to.name] = { results };
  }
  return Object.keys(view).length > 0 ? view : undefined;
}

/** The object type an `associations.<type>` search pseudo-property names (`associations.contact`). */
export function associationFilterType(
  ctx: HubSpotContext,
  propertyName: string,
): ObjectTypeDefinition | undefined {
  const ref = propertyName.slice('associations.'.length);
  return (
    ctx.portal.types.resolveActive(ref) ??
    ctx.portal.types.list({ archived: false }).find((t) => t.singularName.toLowerCase() === ref.toLowerCase())
  );
}

/** Whether a record passes an `associations.<type>` filter (EQ / NEQ / IN / NOT_IN / HAS_PROPERTY on target ids). */
export function matchesAssociation(
  ctx: HubSpotContext,
  from: ObjectTypeDefinition,
  recordId: string,
  filter: { propertyName: string; operator: string; value?: string; values?: string[] },
): boolean {
  const to = associationFilterType(ctx, filter.propertyName);
  if (to === undefined) return false;
  const ids = new Set(associatedLive(ctx, from, recordId, to).map((a) => a.toObjectId));
  const wanted = filter.values ?? (filter.value === undefined ? [] : [filter.value]);
  const hit = wanted.some((v) => ids.has(String(v)));
  switch (filter.operator) {
    case 'EQ':
    case 'IN':
      return hit;
    case 'NEQ':
    case 'NOT_IN':
      return !hit;
    case 'HAS_PROPERTY':
      return ids.size > 0;
    case 'NOT_HAS_PROPERTY':
      return ids.size === 0;
    default:
      return false;
  }
}
