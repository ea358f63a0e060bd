import { ApiError } from '../errors/index.ts';

/** Longer than any real field name or relationship path of either CRM; the get schema's limit too. */
export const MAX_FIELD_NAME_LENGTH = 255;
/**
 * Distinct field names in one write request, all records together. A Salesforce object has at most
 * 800 custom fields plus its standard ones; anything past this is not a real record set, and the
 * per-field work (mapping, "did you mean") must stay bounded.
 */
export const MAX_DISTINCT_FIELDS = 1000;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Refuses (400) a field name longer than MAX_FIELD_NAME_LENGTH and more than MAX_DISTINCT_FIELDS
 * distinct names, before any name is matched against the object's fields. Linear in the keys sent.
 */
export function checkFieldNames(records: readonly unknown[]): void {
  const seen = new Set<string>();
  for (let index = 0; index < records.length; index++) {
    const record = records[index];
    if (!isPlainObject(record)) continue;
    for (const key in record) {
      if (key.length > MAX_FIELD_NAME_LENGTH) {
        throw new ApiError(
          'field_name_too_long',
          `A field name is ${key.length} characters long; field names have at most ${MAX_FIELD_NAME_LENGTH}. Use the field's API name.`,
          {
            details: [
              {
                path: `/data/${index}`,
                field: `${key.slice(0, 40)}…`,
                length: key.length,
                limit: MAX_FIELD_NAME_LENGTH,
              },
            ],
          },
        );
      }
      seen.add(key.toLowerCase());
      if (seen.size > MAX_DISTINCT_FIELDS) {
        throw new ApiError(
          'too_many_fields',
          `The records name more than ${MAX_DISTINCT_FIELDS} distinct fields; one request may use at most ${MAX_DISTINCT_FIELDS}. POST /v1/describe/{object} lists the object's fields.`,
          { details: [{ path: `/data/${index}`, limit: MAX_DISTINCT_FIELDS }] },
        );
      }
    }
  }
}

/**
 * Longest value a match key can hold: Salesforce's Text and External ID fields take 255
 * characters, ids 18. The value goes into a URL (External ID upsert) or a query, where a longer
 * one could only fail at the CRM's URL limit.
 */
export const MAX_MATCH_VALUE_LENGTH = 255;

export function checkMatchValue(field: string, value: unknown): void {
  if (typeof value !== 'string' || value.length <= MAX_MATCH_VALUE_LENGTH) return;
  throw new ApiError(
    'invalid_value',
    `The match value of ${field} is ${value.length} characters long; a match key holds at most ${MAX_MATCH_VALUE_LENGTH} characters, so no record can match it.`,
    { details: [{ path: `/data/0/${field}`, length: value.length, limit: MAX_MATCH_VALUE_LENGTH }] },
  );
}
