import { ApiError } from '../../errors/index.ts';

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
