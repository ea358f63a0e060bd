import fc from 'fast-check';
import type { FuzzValue } from './json-bytes.ts';

/** The subset of JSON Schema the service's TypeBox schemas produce (as served in /openapi.json). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  patternProperties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
}

/** Values the CRMs know, so some generated requests get past validation into the CRM calls. */
const FIELD_NAMES = [
  'Name',
  'name',
  'Industry',
  'Email',
  'LastName',
  'email',
  'firstname',
  'Id',
  'Owner.Name',
];
const SMALL = 4;

const jsonLeaf: fc.Arbitrary<FuzzValue> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 30, 30);
  if (schema.pattern !== undefined) {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY));
  }
  return fc.oneof(fc.string({ minLength, maxLength }), fc.constantFrom(...FIELD_NAMES));
}

/**
 * Values that mostly satisfy `schema`, small enough to send hundreds of them: the starting point
 * that the fuzzer then breaks (see request-arbitrary.ts).
 */
export function valueFor(schema: JsonSchema, depth = 0): fc.Arbitrary<FuzzValue> {
  if (schema.const !== undefined) return fc.constant(schema.const as FuzzValue);
  if (schema.enum !== undefined) return fc.constantFrom(...(schema.enum as FuzzValue[]));
  if (schema.allOf !== undefined) {
    return fc.tuple(...schema.allOf.map((s) => valueFor(s, depth))).map((parts) => {
      const merged: Record<string, FuzzValue> = {};
      for (const part of parts) if (typeof part === 'object' && part !== null) Object.assign(merged, part);
      return merged;
    });
  }
  const union = schema.anyOf ?? schema.oneOf;
  if (union !== undefined) return fc.oneof(...union.map((s) => valueFor(s, depth)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object':
      return objectFor(schema, depth);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? SMALL, SMALL));
      return fc.array(valueFor(schema.items ?? {}, depth + 1), { minLength, maxLength });
    }
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 1_000 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      // Unconstrained (a record value): anything JSON, kept shallow.
      return depth > 2 ? jsonLeaf : fc.oneof(jsonLeaf, fc.array(jsonLeaf, { maxLength: SMALL }));
  }
}

function objectFor(schema: JsonSchema, depth: number): fc.Arbitrary<FuzzValue> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const known = Object.entries(properties).map(([key, s]) =>
    fc.tuple(fc.constant(key), valueFor(s, depth + 1), required.has(key) ? fc.constant(true) : fc.boolean()),
  );
  const open = schema.patternProperties !== undefined || schema.additionalProperties === true;
  const extra = open
    ? fc.dictionary(fc.constantFrom(...FIELD_NAMES), valueFor({}, depth + 1), { maxKeys: SMALL })
    : fc.constant({});
  return fc.tuple(fc.tuple(...known), extra).map(([entries, more]) => {
    const out: Record<string, FuzzValue> = { ...(more as Record<string, FuzzValue>) };
    for (const [key, value, present] of entries) if (present) out[key] = value;
    return out;
  });
}
