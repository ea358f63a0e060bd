import type { HubSpotContext } from '../context.ts';
import type { AssociationDefinition, ObjectTypeDefinition } from '../model/types.ts';

export interface SchemaViewOptions {
  properties: boolean;
  associations: boolean;
  audit: boolean;
}

const ALL: SchemaViewOptions = { properties: true, associations: true, audit: true };

/** Wire shape of an association definition, keys in the captured order. */
function association(a: AssociationDefinition) {
  return {
    fromObjectTypeId: a.fromObjectTypeId,
    toObjectTypeId: a.toObjectTypeId,
    ...(a.name !== undefined ? { name: a.name } : {}),
    ...(a.cardinality !== undefined ? { cardinality: a.cardinality } : {}),
    ...(a.inverseCardinality !== undefined ? { inverseCardinality: a.inverseCardinality } : {}),
    id: a.id,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

/** Captured answers name standard types by their upper-case name (`CONTACT`), custom ones by schema name. */
const wireName = (t: ObjectTypeDefinition): string => (t.custom ? t.name : t.fullyQualifiedName);

/** The keys `ObjectSchema` and `ObjectTypeDefinition` share, in the order live answers give them. */
function definitionHead(t: ObjectTypeDefinition) {
  return {
    labels: { ...t.labels },
    ...(t.description !== undefined ? { description: t.description } : {}),
    requiredProperties: [...t.requiredProperties],
    searchableProperties: [...t.searchableProperties],
    ...(t.primaryDisplayProperty !== undefined ? { primaryDisplayProperty: t.primaryDisplayProperty } : {}),
    secondaryDisplayProperties: [...t.secondaryDisplayProperties],
    ...(t.allowsSensitiveProperties !== undefined
      ? { allowsSensitiveProperties: t.allowsSensitiveProperties }
      : {}),
    archived: t.archived,
    restorable: t.restorable,
    metaType: t.metaType,
    id: t.id,
    fullyQualifiedName: t.fullyQualifiedName,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

/**
 * `ObjectSchema` (crm-schemas-v3) with the keys live answers add (`restorable`, `metaType`), in the
 * order a recorded `GET /crm/v3/schemas/2-…` shows; internal registry keys stay out.
 */
export function objectSchema(ctx: HubSpotContext, t: ObjectTypeDefinition, view: SchemaViewOptions = ALL) {
  return {
    ...definitionHead(t),
    ...(view.audit && t.createdByUserId !== undefined ? { createdByUserId: t.createdByUserId } : {}),
    ...(view.audit && t.updatedByUserId !== undefined ? { updatedByUserId: t.updatedByUserId } : {}),
    objectTypeId: t.objectTypeId,
    properties: view.properties ? ctx.portal.properties.list(t.objectTypeId) : [],
    associations: view.associations ? t.associations.map(association) : [],
    name: wireName(t),
  };
}

/** `ObjectTypeDefinition`: what PATCH answers (no properties, no associations). */
export function objectTypeDefinition(ctx: HubSpotContext, t: ObjectTypeDefinition) {
  return {
    ...definitionHead(t),
    objectTypeId: t.objectTypeId,
    portalId: ctx.portal.portalId,
    name: wireName(t),
  };
}

export { association as associationDefinition };
