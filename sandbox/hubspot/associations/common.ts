import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import type { HubSpotBatchError } from '../errors.ts';
import type { AssociationType } from '../model/associations.ts';
import type { ObjectTypeDefinition } from '../model/types.ts';
import { isRecord, typeOrReply } from '../objects/http.ts';

export interface PairParams {
  fromObjectType: string;
  toObjectType: string;
}

/** v4 `AssociationSpecWithLabel`: an unlabelled type leaves `label` out (the documents type it as a string). */
export const spec = (t: AssociationType) => ({
  category: t.category,
  typeId: t.typeId,
  ...(t.label === null ? {} : { label: t.label }),
});

export const idOf = (v: unknown): string => (isRecord(v) ? String(v['id'] ?? '') : '');

function pairOrReply(
  ctx: HubSpotContext,
  params: PairParams,
  reply: FastifyReply,
): [ObjectTypeDefinition, ObjectTypeDefinition] | undefined {
  const from = typeOrReply(ctx, params.fromObjectType, reply);
  if (from === undefined) return undefined;
  const to = typeOrReply(ctx, params.toObjectType, reply);
  if (to === undefined) return undefined;
  return [from, to];
}

/**
 * A route on a pair of object types (`:fromObjectType/:toObjectType`): both are resolved first, an
 * unknown one answered as HubSpot does, then `handle` gets the pair.
 */
export function pairRoute(
  app: FastifyInstance,
  ctx: HubSpotContext,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  kind: string,
  handle: (
    req: FastifyRequest<{ Params: PairParams & Record<string, string>; Body: unknown }>,
    reply: FastifyReply,
    pair: [ObjectTypeDefinition, ObjectTypeDefinition],
  ) => unknown,
): void {
  app.route<{ Params: PairParams & Record<string, string>; Body: unknown }>({
    method,
    url,
    config: { kind },
    handler: async (req, reply) => {
      const pair = pairOrReply(ctx, req.params, reply);
      if (pair === undefined) return reply;
      return handle(req, reply, pair);
    },
  });
}

export const live = (ctx: HubSpotContext, type: ObjectTypeDefinition, id: string) =>
  ctx.portal.records.get(type.objectTypeId, id) !== undefined;

export function missingObject(type: ObjectTypeDefinition, id: string): HubSpotBatchError {
  return {
    status: 'error',
    category: 'VALIDATION_ERROR',
    message: `One or more ${type.singularName} ids are invalid: ${id}`,
    context: { ids: [id] },
  };
}

/** Associations of one record to live records of `to` (archived records drop out of every read). */
export function associatedLive(
  ctx: HubSpotContext,
  from: ObjectTypeDefinition,
  fromId: string,
  to: ObjectTypeDefinition,
): Array<{ toObjectId: string; types: AssociationType[] }> {
  return ctx.portal.associations
    .of(from.objectTypeId, fromId, to.objectTypeId)
    .filter((a) => live(ctx, to, a.toObjectId));
}

/**
 * A batch read of associations (v3 and v4): per input id, its live associations shaped by `shape`,
 * or an error entry (`category` as each version answers it) when it has none.
 */
export function readAssociations<T>(
  ctx: HubSpotContext,
  pair: [ObjectTypeDefinition, ObjectTypeDefinition],
  inputs: Array<Record<string, unknown>>,
  category: string,
  shape: (id: string, found: Array<{ toObjectId: string; types: AssociationType[] }>) => T,
): { results: T[]; errors: HubSpotBatchError[] } {
  const [from, to] = pair;
  const results: T[] = [];
  const errors: HubSpotBatchError[] = [];
  for (const input of inputs) {
    const id = String(input['id'] ?? '');
    const found = associatedLive(ctx, from, id, to);
    if (found.length > 0) results.push(shape(id, found));
    else
      errors.push({
        status: 'error',
        category,
        message: `No ${to.singularName} is associated with ${from.singularName} ${id}.`,
        context: { fromObjectId: [id], toObjectType: [to.singularName] },
      });
  }
  return { results, errors };
}

/**
 * A `{associationCategory, associationTypeId}` input, or undefined when it is not one. The
 * date-versioned API's examples send the type id alone, so a missing category matches any.
 */
export function specInput(raw: unknown): { category: string | undefined; typeId: number } | undefined {
  if (!isRecord(raw)) return undefined;
  const typeId = Number(raw['associationTypeId']);
  const category = raw['associationCategory'];
  if ((category !== undefined && typeof category !== 'string') || !Number.isInteger(typeId)) return undefined;
  return { category, typeId };
}

/** The types among `inputs` that are not defined from `from` to `to` (category included when given). */
export function unknownSpecs(
  ctx: HubSpotContext,
  from: ObjectTypeDefinition,
  to: ObjectTypeDefinition,
  inputs: unknown[],
): string[] {
  const known = new Map(
    ctx.portal.associations.types(from.objectTypeId, to.objectTypeId).map((t) => [t.typeId, t]),
  );
  return inputs.flatMap((raw) => {
    const s = specInput(raw);
    if (s === undefined) return ['an entry without associationCategory and associationTypeId'];
    const k = known.get(s.typeId);
    const fits = k !== undefined && (s.category === undefined || k.category === s.category);
    return fits ? [] : [`${s.category ?? 'any category'}/${s.typeId}`];
  });
}

/** Lower-case singular name v3 association type names are built from (`contact_to_company`). */
const singular = (t: ObjectTypeDefinition) =>
  t.custom ? t.fullyQualifiedName : t.singularName.toLowerCase();

/**
 * The v3 name of an association type: `contact_to_company` for the pair's primary (or only)
 * HubSpot-defined type, `…_unlabeled` for the unlabelled one when a primary exists (the names
 * the v3 Associations API lists), a custom object's association definition's `name` for its
 * types, the type id for a user-defined label.
 */
export function v3Name(
  ctx: HubSpotContext,
  from: ObjectTypeDefinition,
  to: ObjectTypeDefinition,
  type: AssociationType,
): string {
  if (type.category !== 'HUBSPOT_DEFINED')
    return ctx.portal.associations.nameOf(type.typeId) ?? String(type.typeId);
  const base = `${singular(from)}_to_${singular(to)}`;
  const types = ctx.portal.associations.types(from.objectTypeId, to.objectTypeId);
  const hasPrimary = types.some((t) => t.category === 'HUBSPOT_DEFINED' && t.label !== null);
  return hasPrimary && type.label === null ? `${base}_unlabeled` : base;
}

/** The type id a v3 name (or a type id written as text) stands for between two types. */
export function v3TypeId(
  ctx: HubSpotContext,
  from: ObjectTypeDefinition,
  to: ObjectTypeDefinition,
  name: string,
): number | undefined {
  const types = ctx.portal.associations.types(from.objectTypeId, to.objectTypeId);
  return types.find((t) => v3Name(ctx, from, to, t) === name || String(t.typeId) === name)?.typeId;
}
