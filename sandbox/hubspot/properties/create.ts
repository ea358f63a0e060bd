import type { HubSpotContext } from '../context.ts';
import type { PropertyInput, PropertyPatch } from '../model/properties.ts';
import type { ObjectTypeDefinition } from '../model/types.ts';
import {
  alreadyExists,
  checkCalculation,
  checkName,
  checkNotReserved,
  checkOptions,
  checkTypePair,
  groupMissing,
  MAX_UNIQUE_PROPERTIES,
  missingAttributes,
  normaliseOptions,
  type OptionInput,
  type Rejection,
  reject,
} from './rules.ts';

export type Checked<T> = { ok: true; value: T } | { ok: false; rejection: Rejection };

const fail = <T>(rejection: Rejection): Checked<T> => ({ ok: false, rejection });

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Optional `PropertyCreate` / `PropertyUpdate` keys copied as they are when their JSON type fits. */
const STRING_KEYS = [
  'description',
  'calculationFormula',
  'currencyPropertyName',
  'dataSensitivity',
  'numberDisplayHint',
  'textDisplayHint',
  'referencedObjectType',
] as const;
const BOOLEAN_KEYS = ['hidden', 'formField', 'externalOptions', 'showCurrencySymbol'] as const;

function optionalFields(body: Record<string, unknown>): Partial<PropertyInput> {
  const out: Record<string, unknown> = {};
  for (const k of STRING_KEYS) if (typeof body[k] === 'string') out[k] = body[k];
  for (const k of BOOLEAN_KEYS) if (typeof body[k] === 'boolean') out[k] = body[k];
  if (typeof body.displayOrder === 'number') out.displayOrder = body.displayOrder;
  return out as Partial<PropertyInput>;
}

const optionsOf = (body: Record<string, unknown>): OptionInput[] | undefined =>
  Array.isArray(body.options) ? (body.options.filter(isRecord) as OptionInput[]) : undefined;

/** Validates a `PropertyCreate` body for one object type with HubSpot's rules; the input to store on success. */
export function checkPropertyCreate(
  ctx: HubSpotContext,
  type: ObjectTypeDefinition,
  raw: unknown,
): Checked<PropertyInput> {
  const body = isRecord(raw) ? raw : {};
  const missing = missingAttributes('PropertyCreate', body, [
    'fieldType',
    'groupName',
    'label',
    'name',
    'type',
  ]);
  if (missing !== null) return fail(missing);
  const name = String(body.name);
  const propType = String(body.type);
  const fieldType = String(body.fieldType);
  const groupName = String(body.groupName);
  const options = optionsOf(body);
  const registry = ctx.portal.properties;
  const rejection =
    checkTypePair(propType, fieldType) ??
    checkName(name) ??
    checkNotReserved(name) ??
    (registry.has(type.objectTypeId, name) ? alreadyExists(name) : null) ??
    (registry.getGroup(type.objectTypeId, groupName) === undefined ? groupMissing(groupName) : null) ??
    checkOptions(name, propType, options) ??
    checkCalculation(propType, fieldType, body.calculationFormula) ??
    checkUniqueCount(ctx, type, body.hasUniqueValue === true);
  if (rejection !== null) return fail(rejection);
  return {
    ok: true,
    value: {
      ...optionalFields(body),
      name,
      label: String(body.label),
      type: propType,
      fieldType,
      groupName,
      options: normaliseOptions(options, propType),
      hasUniqueValue: body.hasUniqueValue === true,
      calculated: fieldType === 'calculation_equation',
    },
  };
}

function checkUniqueCount(
  ctx: HubSpotContext,
  type: ObjectTypeDefinition,
  unique: boolean,
): Rejection | null {
  if (!unique) return null;
  const count = ctx.portal.properties.list(type.objectTypeId).filter((p) => p.hasUniqueValue === true).length;
  if (count < MAX_UNIQUE_PROPERTIES) return null;
  return reject(
    `At most ${MAX_UNIQUE_PROPERTIES} properties with unique values are allowed on object type ${type.objectTypeId}.`,
  );
}

/**
 * Validates a `PropertyUpdate` (every field optional) against the current definition: the merged
 * type/fieldType pair must be valid, the group must exist, enumerations keep options. HubSpot-defined
 * properties with a read-only definition refuse changes.
 */
export function checkPropertyUpdate(
  ctx: HubSpotContext,
  type: ObjectTypeDefinition,
  name: string,
  raw: unknown,
): Checked<PropertyPatch> | null {
  const current = ctx.portal.properties.get(type.objectTypeId, name);
  if (current === undefined) return null;
  const body = isRecord(raw) ? raw : {};
  if (current.modificationMetadata?.readOnlyDefinition === true) {
    return fail(reject(`Property '${name}' is a HubSpot-defined property whose definition is read-only.`));
  }
  const propType = typeof body.type === 'string' ? body.type : String(current.type);
  const fieldType = typeof body.fieldType === 'string' ? body.fieldType : current.fieldType;
  const groupName = typeof body.groupName === 'string' ? body.groupName : current.groupName;
  const options = optionsOf(body) ?? current.options;
  const rejection =
    checkTypePair(propType, fieldType) ??
    (ctx.portal.properties.getGroup(type.objectTypeId, groupName) === undefined
      ? groupMissing(groupName)
      : null) ??
    checkOptions(name, propType, options) ??
    checkCalculation(propType, fieldType, body.calculationFormula ?? current.calculationFormula);
  if (rejection !== null) return fail(rejection);
  const patch: PropertyPatch = {
    ...optionalFields(body),
    type: propType,
    fieldType,
    groupName,
    options: normaliseOptions(options, propType),
    calculated: fieldType === 'calculation_equation',
  };
  if (typeof body.label === 'string') patch.label = body.label;
  return { ok: true, value: patch };
}
