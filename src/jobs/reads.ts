// A job's results: counted and stored in pieces when it finishes, read back page by page.
import type { SaveResult } from '../domain/operations.ts';
import type { JobCounts, Store } from '../store/types.ts';

/** What the API reads of jobs: one job, a token's jobs page by page, a finished job's results. */
export type JobReads = Pick<Store['jobs'], 'find' | 'list' | 'resultPieces'>;

/** The job's record-level counts from a finished answer. */
export function countsOf(results: readonly SaveResult[]): JobCounts {
  const succeeded = results.filter((r) => r.success).length;
  return { processed: results.length, succeeded, failed: results.length - succeeded };
}

/** A finished job's results, stored in pieces of `size`, so that a page of them reads one or two pieces. */
export async function storeResults(
  jobs: Pick<Store['jobs'], 'putResults'>,
  id: string,
  results: readonly SaveResult[],
  size: number,
): Promise<void> {
  const pieces = [];
  for (let first = 0; first < results.length; first += size) {
    pieces.push({ piece: first / size, first, results: JSON.stringify(results.slice(first, first + size)) });
  }
  await jobs.putResults(id, pieces);
}

/** Results at positions [from, from + limit) of a finished job, in input order. */
export async function readResults(
  jobs: Pick<Store['jobs'], 'resultPieces'>,
  id: string,
  from: number,
  limit: number,
): Promise<SaveResult[]> {
  const pieces = await jobs.resultPieces(id, from, from + limit);
  // A piece's results sit at input positions p.first, p.first + 1, …
  return pieces.flatMap((p) =>
    (JSON.parse(p.results) as SaveResult[]).filter(
      (_, k) => p.first + k >= from && p.first + k < from + limit,
    ),
  );
}
