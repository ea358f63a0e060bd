import { ApiError } from '../errors/index.ts';
import { isRecord } from '../lib/is-record.ts';

/** Longer than any real field name or relationship path of the CRMs; the get schema's limit too. */
export const MAX_FIELD_NAME_LENGTH = 255;
/** Distinct field names per write request: objects have at most ~800; per-field work must stay bounded. */
export const MAX_DISTINCT_FIELDS = 1000;

/** Refuses (400) too long or too many distinct field names, before any is matched against the object. */
export function checkFieldNames(records: readonly unknown[]): void {
  const seen = new Set<string>();
  for (let index = 0; index < records.length; index++) {
    const record = records[index];
    if (!isRecord(record)) continue;
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
