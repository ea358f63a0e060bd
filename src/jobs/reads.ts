// A job's results: counted and stored in pieces when it finishes, read back page by page.
import type { SaveResult } from '../domain/operations.ts';
import type { JobCounts, Store } from '../store/types.ts';

/** What the API reads of jobs: one job, a token's jobs page by page, a finished job's results. */
export type JobReads = Pick<Store['jobs'], 'find' | 'list' | 'resultPieces'>;

/** Results per stored piece: a page of them reads one or two pieces. */
const PIECE = 500;

/** The job's record-level counts from a finished answer. */
export function countsOf(results: readonly SaveResult[]): JobCounts {
  const succeeded = results.filter((r) => r.success).length;
  return { processed: results.length, succeeded, failed: results.length - succeeded };
}

/** A finished job's results, stored in pieces. */
export async function storeResults(
  jobs: Pick<Store['jobs'], 'putResults'>,
  id: string,
  results: readonly SaveResult[],
): Promise<void> {
  const pieces = [];
  for (let first = 0; first < results.length; first += PIECE) {
    const text = JSON.stringify(results.slice(first, first + PIECE));
    pieces.push({ piece: first / PIECE, first, results: text });
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
