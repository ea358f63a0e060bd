import assert from 'node:assert/strict';
import type { Stack } from '../helpers/stack.ts';

export interface RecordResult {
  id?: string;
  success: boolean;
  errors: Array<{ statusCode: string; message: string; fields: string[] }>;
}
export interface WriteAnswer {
  data: RecordResult[];
}
export interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
}

/** How many records an answer reports written, and how many under each error code. */
export function outcomeCounts(answer: {
  data: Array<{ success: boolean; errors: Array<{ statusCode: string }> }>;
}): Record<string, number> {
  const seen = new Map<string, number>();
  for (const r of answer.data) {
    const code = r.success ? 'written' : (r.errors[0]?.statusCode ?? '?');
    seen.set(code, (seen.get(code) ?? 0) + 1);
  }
  return Object.fromEntries(seen);
}

/** Scripted faults through the sandbox's control API. */
export async function injectFaults(
  s: Stack,
  faults: Array<{ kind: string; match: string; times?: number; skip?: number }>,
): Promise<void> {
  const response = await fetch(`${s.sf.url}/__sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ faults }),
  });
  assert.ok(response.ok, await response.text());
}

/** Records of an object whose field starts with a prefix, counted in the sandbox's org itself. */
export function countWhere(s: Stack, objectName: string, field: string, prefix: string): number {
  const run = s.sf.org.query(`SELECT COUNT() FROM ${objectName} WHERE ${field} LIKE '${prefix}%'`, {});
  return run.totalSize;
}

/** One stored record, read from the sandbox's org. */
export function stored(s: Stack, id: string | undefined): Record<string, unknown> | undefined {
  return id === undefined ? undefined : s.sf.org.get(id)?.record;
}
