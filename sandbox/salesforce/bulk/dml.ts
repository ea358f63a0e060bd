import type { RecordError, SaveResult } from '../org/types.ts';
import type { BulkOrg } from './context.ts';

export const BULK_OPERATIONS = ['insert', 'update', 'upsert', 'delete', 'hardDelete'] as const;
export type BulkOperation = (typeof BULK_OPERATIONS)[number];

const fail = (statusCode: string, message: string, fields: string[] = []): SaveResult => ({
  success: false,
  errors: [{ statusCode, message, fields }],
});

function idOf(rec: Record<string, unknown>): string | undefined {
  for (const [k, v] of Object.entries(rec))
    if (k.toLowerCase() === 'id' && typeof v === 'string' && v !== '') return v;
  return undefined;
}

/**
 * Applies one bulk operation to records (values are CSV strings unless `csv` is false, for
 * Bulk 1.0 JSON batches); one result per record in input order. Rows are independent (no
 * all-or-none), as in both Bulk APIs.
 */
export function applyBulk(
  org: BulkOrg,
  object: string,
  operation: BulkOperation,
  externalIdField: string | null,
  records: Record<string, unknown>[],
  userId: string,
  csv = true,
): SaveResult[] {
  const opts = { allOrNone: false, csv, userId };
  switch (operation) {
    case 'insert':
      return org.insert(object, records, opts);
    case 'update':
      return withRequiredKey(
        records,
        (r) => idOf(r) !== undefined,
        fail('MISSING_ARGUMENT', 'Id not specified in an update call'),
        (ok) => org.update(object, ok, opts),
      );
    case 'upsert': {
      const ext = externalIdField ?? 'Id';
      // A blank key fails its row, except on Id, where it inserts (the kernel does that).
      const has = (r: Record<string, unknown>) =>
        ext.toLowerCase() === 'id' ||
        Object.entries(r).some(([k, v]) => k.toLowerCase() === ext.toLowerCase() && v !== '');
      return withRequiredKey(records, has, fail('MISSING_ARGUMENT', `${ext} not specified`), (ok) =>
        org.upsert(object, ext, ok, opts),
      );
    }
    case 'delete':
    case 'hardDelete': {
      // The emulator keeps no recycle bin distinction: hardDelete deletes as delete does.
      return withRequiredKey(
        records,
        (r) => idOf(r) !== undefined,
        fail('MISSING_ARGUMENT', 'Id not specified in a delete call'),
        (ok) =>
          org
            .delete(
              ok.map((r) => idOf(r) ?? ''),
              opts,
            )
            .map((r) => ({ ...r, created: false })),
      );
    }
  }
}

/** Rows missing their key fail on their own; the others go to the kernel in one call, order kept. */
function withRequiredKey(
  records: Record<string, unknown>[],
  has: (r: Record<string, unknown>) => boolean,
  missing: SaveResult,
  run: (records: Record<string, unknown>[]) => SaveResult[],
): SaveResult[] {
  const ok = records.filter(has);
  const results = ok.length > 0 ? run(ok) : [];
  let j = 0;
  return records.map((r) => (has(r) ? (results[j++] ?? missing) : missing));
}

/** `STATUS_CODE:message:field1,field2 --`: how both Bulk APIs flatten a record's first error. */
export function formatBulkError(errors: RecordError[]): string {
  const e = errors[0];
  if (e === undefined) return 'UNKNOWN_EXCEPTION:unknown error: --';
  return `${e.statusCode}:${e.message}:${e.fields.join(',')} --`;
}
