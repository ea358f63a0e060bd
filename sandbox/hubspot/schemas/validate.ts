import type { HubSpotContext } from '../context.ts';
import { hubspotError } from '../errors.ts';
import type { ObjectSchemaInput } from '../model/custom-types.ts';
import type { Checked } from '../properties/create.ts';
import {
  checkCalculation,
  checkName,
  checkNotReserved,
  checkOptions,
  checkTypePair,
  missingAttributes,
  normaliseOptions,
  type OptionInput,
  type Rejection,
  reject,
} from '../properties/rules.ts';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
const fail = <T>(rejection: Rejection): Checked<T> => ({ ok: false, rejection });

/** Object names: letters, digits and underscores, starting with a letter (schemas guide). */
const OBJECT_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

type SchemaProperty = ObjectSchemaInput['properties'][number];

/** One `ObjectTypePropertyCreate`: `type`/`fieldType` default to `string`/`text`, as HubSpot's guide says. */
function checkSchemaProperty(raw: unknown): Checked<SchemaProperty> {
  const body = isRecord(raw) ? raw : {};
  const missing = missingAttributes('ObjectTypePropertyCreate', body, ['label', 'name']);
  if (missing !== null) return fail(missing);
  const name = String(body['name']);
  const type = typeof body['type'] === 'string' ? body['type'] : 'string';
  const fieldType = typeof body['fieldType'] === 'string' ? body['fieldType'] : 'text';
  const options = Array.isArray(body['options'])
    ? (body['options'].filter(isRecord) as OptionInput[])
    : undefined;
  const rejection =
    checkTypePair(type, fieldType) ??
    checkName(name) ??
    checkNotReserved(name) ??
    checkOptions(name, type, options) ??
    checkCalculation(type, fieldType, body['calculationFormula']);
  if (rejection !== null) return fail(rejection);
  return {
    ok: true,
    value: {
      name,
      label: String(body['label']),
      type,
      fieldType,
      options: normaliseOptions(options, type),
      ...(typeof body['description'] === 'string' ? { description: body['description'] } : {}),
      ...(typeof body['groupName'] === 'string' ? { groupName: body['groupName'] } : {}),
      ...(typeof body['displayOrder'] === 'number' ? { displayOrder: body['displayOrder'] } : {}),
      ...(typeof body['hasUniqueValue'] === 'boolean' ? { hasUniqueValue: body['hasUniqueValue'] } : {}),
      ...(typeof body['hidden'] === 'boolean' ? { hidden: body['hidden'] } : {}),
      ...(typeof body['formField'] === 'boolean' ? { formField: body['formField'] } : {}),
    },
  };
}

/** Names listed in `requiredProperties` & co. must be properties of the schema. */
export function checkReferences(known: Set<string>, fields: Record<string, string[]>): Rejection | null {
  for (const [field, names] of Object.entries(fields)) {
    const unknown = names.filter((n) => !known.has(n));
    if (unknown.length > 0) {
      return reject(
        `${field} contains properties that are not defined on the object: [${unknown.join(', ')}]`,
      );
    }
  }
  return null;
}

/** Validates an `ObjectSchemaEgg`; the schema to define on success. */
export function checkSchemaCreate(ctx: HubSpotContext, raw: unknown): Checked<ObjectSchemaInput> {
  const body = isRecord(raw) ? raw : {};
  const missing = missingAttributes('ObjectSchemaEgg', body, [
    'associatedObjects',
    'labels',
    'name',
    'properties',
    'requiredProperties',
  ]);
  if (missing !== null) return fail(missing);
  const name = String(body['name']);
  if (!OBJECT_NAME.test(name)) {
    return fail(
      reject(
        `Object name '${name}' is invalid: use letters, numbers and underscores, starting with a letter.`,
      ),
    );
  }
  const taken = ctx.portal.types.resolve(name) ?? ctx.portal.types.resolve(`p_${name}`);
  if (taken !== undefined) {
    return fail({
      status: 409,
      body: hubspotError({
        message: `An object type named '${name}' already exists (${taken.objectTypeId}).`,
        category: 'OBJECT_ALREADY_EXISTS',
      }),
    });
  }
  const labels = isRecord(body['labels']) ? body['labels'] : {};
  if (typeof labels['singular'] !== 'string' || typeof labels['plural'] !== 'string') {
    return fail(
      missingAttributes('ObjectTypeDefinitionLabels', labels, ['plural', 'singular']) ??
        reject('Invalid labels'),
    );
  }
  const properties: SchemaProperty[] = [];
  for (const p of Array.isArray(body['properties']) ? body['properties'] : []) {
    const checked = checkSchemaProperty(p);
    if (!checked.ok) return checked;
    if (properties.some((q) => q.name === checked.value.name)) {
      return fail(reject(`Property '${checked.value.name}' is defined twice.`));
    }
    properties.push(checked.value);
  }
  const known = new Set(properties.map((p) => p.name));
  const primary =
    typeof body['primaryDisplayProperty'] === 'string' ? body['primaryDisplayProperty'] : undefined;
  const refs = checkReferences(known, {
    requiredProperties: strings(body['requiredProperties']),
    searchableProperties: strings(body['searchableProperties']),
    secondaryDisplayProperties: strings(body['secondaryDisplayProperties']),
    primaryDisplayProperty: primary === undefined ? [] : [primary],
  });
  if (refs !== null) return fail(refs);
  const associatedObjects: string[] = [];
  for (const ref of strings(body['associatedObjects'])) {
    const t = ctx.portal.types.resolveActive(ref);
    if (t === undefined) return fail(reject(`Unable to infer object type from: ${ref}`));
    associatedObjects.push(t.objectTypeId);
  }
  return {
    ok: true,
    value: {
      name,
      labels: { singular: labels['singular'], plural: labels['plural'] },
      ...(typeof body['description'] === 'string' ? { description: body['description'] } : {}),
      properties,
      requiredProperties: strings(body['requiredProperties']),
      searchableProperties: strings(body['searchableProperties']),
      ...(primary !== undefined ? { primaryDisplayProperty: primary } : {}),
      secondaryDisplayProperties: strings(body['secondaryDisplayProperties']),
      associatedObjects,
      ...(typeof body['allowsSensitiveProperties'] === 'boolean'
        ? { allowsSensitiveProperties: body['allowsSensitiveProperties'] }
        : {}),
    },
  };
}
