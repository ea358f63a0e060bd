import type { HubSpotErrorBody } from '../errors.ts';
import { hubspotError, validationBody } from '../errors.ts';
import type { PropertyOption } from '../model/types.ts';

/**
 * HubSpot's rules for property definitions (Properties API v3 and the properties of a custom object
 * schema). Pure functions: each returns an error answer or null.
 *
 * Valid `type` → `fieldType` pairs, from "Property type and fieldType values" in
 * https://developers.hubspot.com/docs/api-reference/latest/crm/properties/guide (enforced on v3
 * since 2021-02-01: https://developers.hubspot.com/changelog/crm-object-property-validattion).
 * The docs' table confirms bool, enumeration, date, datetime and number; for string one version lists
 * only file/text/textarea/calculation_equation while later ones add html and phonenumber (the
 * fieldType enum has both): accepted here, as rejecting a pair HubSpot takes would be the worse error.
 * `phone_number` is absent from the table; recorded answers pair it with `phonenumber` (HubSpot's
 * own phone properties). The error texts are not documented: they follow HubSpot's VALIDATION_ERROR style.
 */
export const FIELD_TYPES_BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  bool: ['booleancheckbox', 'calculation_equation'],
  enumeration: ['booleancheckbox', 'checkbox', 'radio', 'select', 'calculation_equation'],
  date: ['date'],
  datetime: ['date'],
  string: ['text', 'textarea', 'html', 'phonenumber', 'file', 'calculation_equation'],
  number: ['number', 'calculation_equation'],
  phone_number: ['phonenumber'],
};

export const PROPERTY_TYPES = Object.keys(FIELD_TYPES_BY_TYPE).sort();
export const FIELD_TYPES = [...new Set(Object.values(FIELD_TYPES_BY_TYPE).flat())].sort();

/** Internal names: lower-case letters, digits and underscores, starting with a letter. */
const NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
/** Longest internal name accepted (HubSpot quotes 100 for custom objects' names; not documented for properties). */
export const MAX_NAME_LENGTH = 100;
/** Unique-value properties allowed per object (properties guide: "up to ten"). */
export const MAX_UNIQUE_PROPERTIES = 10;

export type Rejection = { status: number; body: HubSpotErrorBody };

export const reject = (message: string, status = 400): Rejection => ({
  status,
  body: validationBody(message),
});

/** Body-parse style of HubSpot's v3 APIs for missing required attributes (Immutables builder text). */
export function missingAttributes(
  model: string,
  body: Record<string, unknown>,
  required: string[],
): Rejection | null {
  const missing = required.filter((k) => body[k] === undefined || body[k] === null);
  if (missing.length === 0) return null;
  return reject(
    `Invalid input JSON on line 1, column ${JSON.stringify(body).length}: Cannot build ${model}, some of required attributes are not set [${missing.join(', ')}]`,
  );
}

export function checkName(name: string, what = 'Property'): Rejection | null {
  if (!NAME_PATTERN.test(name) || name.length > MAX_NAME_LENGTH) {
    return reject(
      `${what} name '${name}' is invalid. Names must start with a lowercase letter, contain only lowercase letters, numbers and underscores, and be at most ${MAX_NAME_LENGTH} characters long.`,
    );
  }
  return null;
}

/** `hs_` is HubSpot's own namespace: custom properties cannot use it. */
export function checkNotReserved(name: string): Rejection | null {
  return name.startsWith('hs_')
    ? reject(
        `Property name '${name}' is invalid: the 'hs_' prefix is reserved for HubSpot-defined properties.`,
      )
    : null;
}

export function checkTypePair(type: string, fieldType: string): Rejection | null {
  const allowed = FIELD_TYPES_BY_TYPE[type];
  if (allowed === undefined) {
    return reject(
      `Invalid input JSON: Cannot deserialize value of type \`PropertyType\` from String "${type}": not one of the values accepted for Enum class: [${PROPERTY_TYPES.join(', ')}]`,
    );
  }
  if (!FIELD_TYPES.includes(fieldType)) {
    return reject(
      `Invalid input JSON: Cannot deserialize value of type \`FieldType\` from String "${fieldType}": not one of the values accepted for Enum class: [${FIELD_TYPES.join(', ')}]`,
    );
  }
  if (!allowed.includes(fieldType)) {
    return reject(
      `Property type '${type}' is not compatible with fieldType '${fieldType}'. Valid fieldTypes for type '${type}': ${allowed.join(', ')}.`,
    );
  }
  return null;
}

export interface OptionInput {
  label?: unknown;
  value?: unknown;
  hidden?: unknown;
  displayOrder?: unknown;
  description?: unknown;
}

/** Options: required (non-empty) for enumerations, each with a label and a value, values unique. */
export function checkOptions(
  name: string,
  type: string,
  options: OptionInput[] | undefined,
): Rejection | null {
  if (type === 'enumeration' && (options === undefined || options.length === 0)) {
    return reject(`Enumeration property '${name}' must have at least one option.`);
  }
  const seen = new Set<string>();
  for (const [i, o] of (options ?? []).entries()) {
    if (typeof o.label !== 'string' || o.label === '' || typeof o.value !== 'string' || o.value === '') {
      return reject(`Option ${i} of property '${name}' must have a non-empty label and value.`);
    }
    if (seen.has(o.value)) return reject(`Property '${name}' has duplicate option value '${o.value}'.`);
    seen.add(o.value);
  }
  return null;
}

export function checkCalculation(type: string, fieldType: string, formula: unknown): Rejection | null {
  if (fieldType === 'calculation_equation' && (typeof formula !== 'string' || formula === '')) {
    return reject(
      `A property of type '${type}' with fieldType 'calculation_equation' needs a calculationFormula.`,
    );
  }
  return null;
}

export function groupMissing(groupName: string): Rejection {
  return reject(`Property group '${groupName}' does not exist.`);
}

export function alreadyExists(name: string): Rejection {
  return {
    status: 409,
    body: hubspotError({
      message: `A property named '${name}' already exists.`,
      category: 'OBJECT_ALREADY_EXISTS',
    }),
  };
}

/** Options as stored: `hidden` defaults to false and `displayOrder` to the option's position. */
export function normaliseOptions(options: OptionInput[] | undefined, type: string): PropertyOption[] {
  // Live `bool` properties always list True/False, whatever the create body said.
  if (type === 'bool' && (options === undefined || options.length === 0)) {
    return [
      { label: 'True', value: 'true', displayOrder: 0, hidden: false },
      { label: 'False', value: 'false', displayOrder: 1, hidden: false },
    ];
  }
  return (options ?? []).map((o, i) => ({
    label: String(o.label),
    value: String(o.value),
    displayOrder: typeof o.displayOrder === 'number' ? o.displayOrder : i,
    hidden: o.hidden === true,
    ...(typeof o.description === 'string' ? { description: o.description } : {}),
  }));
}
