import type { AnswerHead } from '../adapter.ts';

const API_USAGE = /(?:^|[,\s])api-usage=(\d+)\/(\d+)/;

/**
 * The org's daily API allowance from `Sforce-Limit-Info: api-usage=18/15000`, which Salesforce
 * puts on its REST answers: requests used in the last 24 hours, and the org's limit.
 */
export function readLimitInfo(headers: AnswerHead['headers']): { used: number; limit: number } | undefined {
  const raw = headers['sforce-limit-info'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  const m = value === undefined ? null : API_USAGE.exec(value);
  if (m === null) return undefined;
  const used = Number(m[1]);
  const limit = Number(m[2]);
  return Number.isSafeInteger(used) && Number.isSafeInteger(limit) && limit > 0 ? { used, limit } : undefined;
}
