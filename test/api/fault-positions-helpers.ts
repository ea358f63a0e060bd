import assert from 'node:assert/strict';
import type { Stack } from '../helpers/stack.ts';
import type { RecordResult, WriteAnswer } from './sf-writes-helpers.ts';

/** A scripted fault as the sandboxes' control API takes it. */
export interface Fault {
  kind: string;
  match?: string;
  times?: number;
  skip?: number;
}

/** One row of the fault-position table. */
export interface PositionRow {
  crm: string;
  operation: string;
  via: string;
  position: string;
  expected: number;
  /** Records the CRM holds in the state the write asked for, counted in the sandbox itself. */
  found: number;
  /** Insert only: records stored more than once under one name. */
  doubled: number;
  reportedOk: number;
  reportedUnknown: number;
  status: number;
}

export async function script(url: string, faults: Fault[]): Promise<void> {
  const cleared = await fetch(`${url}/__sandbox/faults`, { method: 'DELETE' });
  assert.ok(cleared.ok);
  const response = await fetch(`${url}/__sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ faults }),
  });
  assert.ok(response.ok, await response.text());
}

const UNKNOWN = 'CRM_PROXY_OUTCOME_UNKNOWN';

/**
 * Per-record truth: every record the CRM holds in the asked-for state is reported written (or
 * reported unknown), every record reported written is there, nothing is doubled, and a replay with
 * the same Idempotency-Key answers the same.
 */
export function checkTruth(
  row: PositionRow,
  answer: WriteAnswer,
  applied: (r: RecordResult, i: number) => boolean,
  replay: WriteAnswer,
): void {
  const what = `${row.crm} ${row.operation} via ${row.via} at ${row.position}`;
  assert.equal(row.status, 200, `${what}: a write that reached the CRM answers per record`);
  answer.data.forEach((r, i) => {
    const there = applied(r, i);
    if (r.success) assert.ok(there, `${what}: record ${i} reported written but not in the CRM`);
    else if (there) {
      assert.equal(r.errors[0]?.statusCode, UNKNOWN, `${what}: record ${i} written but reported failed`);
    }
  });
  assert.equal(row.doubled, 0, `${what}: records doubled`);
  assert.deepEqual(replay, answer, `${what}: the Idempotency-Key replay answers the same`);
}

export function counts(answer: WriteAnswer): Pick<PositionRow, 'reportedOk' | 'reportedUnknown'> {
  return {
    reportedOk: answer.data.filter((r) => r.success).length,
    reportedUnknown: answer.data.filter((r) => r.errors[0]?.statusCode === UNKNOWN).length,
  };
}

/** The table as Markdown, for the test's diagnostics. */
export function table(rows: PositionRow[]): string {
  const head =
    '| CRM | operation | via | fault position | status | expected | found | doubled | reported ok | reported unknown |';
  const line = '|---|---|---|---|---|---|---|---|---|---|';
  const body = rows.map(
    (r) =>
      `| ${r.crm} | ${r.operation} | ${r.via} | ${r.position} | ${r.status} | ${r.expected} | ${r.found} | ${r.doubled} | ${r.reportedOk} | ${r.reportedUnknown} |`,
  );
  return [head, line, ...body].join('\n');
}

/** Writes through the API with an Idempotency-Key, then replays it; both answers. */
export async function writeAndReplay(
  s: Stack,
  path: string,
  token: string,
  body: unknown,
  headers: Record<string, string>,
  key: string,
): Promise<{ status: number; answer: WriteAnswer; replay: WriteAnswer; text: string }> {
  const call = { token, body, headers: { ...headers, 'idempotency-key': key } };
  // Retries after a fault wait on the stack's clock, moved on rather than waited for.
  const first = await s.clock.fastForward(s.api<WriteAnswer>(path, call));
  const again = await s.clock.fastForward(s.api<WriteAnswer>(path, call));
  assert.equal(again.status, first.status, `${path}: the replay keeps the status`);
  return { status: first.status, answer: first.body, replay: again.body, text: first.text };
}

/** The row of one position: the write's answer checked against what the CRM holds. */
export function finishRow(
  base: Omit<PositionRow, 'status' | 'reportedOk' | 'reportedUnknown'>,
  got: Awaited<ReturnType<typeof writeAndReplay>>,
  applied: (r: RecordResult, i: number) => boolean,
): PositionRow {
  const ok = got.status === 200;
  const row: PositionRow = {
    ...base,
    status: got.status,
    ...(ok ? counts(got.answer) : { reportedOk: 0, reportedUnknown: 0 }),
  };
  if (!ok) {
    // Only a write that reached nothing may fail as a whole.
    if (row.found > 0)
      throw new Error(`${row.operation} ${row.position}: ${got.status} after writing ${row.found}`);
    return row;
  }
  checkTruth(row, got.answer, applied, got.replay);
  return row;
}
