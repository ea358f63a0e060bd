import { ApiError } from '../../errors/index.ts';

/** What a field value may be; said in the 400 so the client knows the fix. */
const SHAPES =
  'a string, number, boolean or null; an array of strings for a multi-select picklist; or {"ExternalIdField": value} for a parent reference';

const isScalar = (v: unknown) =>
  v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** True for the shapes a Salesforce field value can take (parent references are checked by the caller). */
export function isFieldValue(value: unknown): boolean {
  if (isScalar(value)) return true;
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** A parent reference's external-id value: a scalar (string or number id). */
export function isReferenceValue(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number';
}

export interface InvalidValue {
  path: string;
  field: string;
}

/** 400 naming each field whose value has none of the shapes a Salesforce field takes. */
export function invalidValues(invalid: InvalidValue[]): ApiError {
  const list = invalid
    .slice(0, 10)
    .map((v) => v.path)
    .join(', ');
  return new ApiError(
    'invalid_value',
    `Field values must be ${SHAPES}. Not so at ${list}${invalid.length > 10 ? ' and more' : ''}.`,
    {
      details: invalid.slice(0, 100).map((v) => ({ ...v, message: `must be ${SHAPES}` })),
    },
  );
}
