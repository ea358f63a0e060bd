import type { CrmRecord, GetAnswer, IdError } from '../../domain/operations.ts';
import { type UnknownField, unknownFields } from '../../errors/index.ts';
import { hinter } from '../../lib/closest.ts';
import type { Handler } from '../adapter.ts';
import type { DescribeFacet, ObjectDescribe, RecordsFacet } from './describe-types.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

/** `[a,b]` + `[c]` → `[a,b,c]`, on JSON array texts. */
export function joinJsonArrays(texts: string[]): string {
  const inner = texts.map((t) => t.slice(1, -1).trim()).filter((t) => t !== '');
  return `[${inner.join(',')}]`;
}

/**
 * Get records by id: one entry per id passed, in order; `null` where no record exists. Duplicate
 * ids are fetched once and answered at each place. Ids are sent in as few calls as the CRM allows
 * (2,000 per sObject Collections retrieve), in parallel under the connection's concurrency cap.
 *
 * Malformed ids (not 15/18 alphanumerics) and ids whose key prefix belongs to another object are
 * answered `null` without being sent — Salesforce itself answers `null` for an invalid id — and the
 * malformed ones are listed in `errors`, so a typo is visible without failing the whole request.
 */
export function salesforceGet(describe: DescribeFacet, records: RecordsFacet): Handler<'get'> {
  return async ({ session, limiter }, input): Promise<GetAnswer> => {
    const meta = await describe.describeObject(session, input.objectName);
    if (meta === null) throw await describe.unknownObject(session, input.objectName);
    const fields = resolveFields(meta, input.fields);

    const errors: IdError[] = [];
    const wanted = new Set<string>();
    input.ids.forEach((id, index) => {
      if (!SALESFORCE_PROFILE.idPattern.test(id)) {
        errors.push({
          index,
          id,
          code: 'malformed_id',
          message: 'Not a Salesforce id (15 or 18 letters and digits).',
        });
      } else if (meta.keyPrefix == null || id.startsWith(meta.keyPrefix)) {
        wanted.add(id);
      }
    });

    const unique = [...wanted];
    const chunks: string[][] = [];
    for (let i = 0; i < unique.length; i += records.retrieveBatchSize) {
      chunks.push(unique.slice(i, i + records.retrieveBatchSize));
    }
    if (errors.length === 0 && unique.length === input.ids.length) {
      // Every id is distinct and sent, so the CRM's arrays are already the answer, in order:
      // pass their text on rather than parse and re-serialise every record.
      const texts = await Promise.all(
        chunks.map((chunk) => limiter.run(() => records.retrieveJson(session, meta.name, chunk, fields))),
      );
      return { json: `{"data":${joinJsonArrays(texts)}}` };
    }
    const found = new Map<string, CrmRecord | null>();
    await Promise.all(
      chunks.map((chunk) =>
        limiter.run(async () => {
          const got = await records.retrieve(session, meta.name, chunk, fields);
          chunk.forEach((id, i) => {
            found.set(id, got[i] ?? null);
          });
        }),
      ),
    );
    const data = input.ids.map((id) => found.get(id) ?? null);
    return errors.length === 0 ? { data } : { data, errors };
  };
}

/**
 * The fields to ask for: every field of the object when none are given (the retrieve call needs
 * an explicit list), else the given ones in their canonical casing, with `Id` always included.
 * Unknown names fail the request with the closest real field as a hint.
 */
function resolveFields(meta: ObjectDescribe, requested: string[] | undefined): string[] {
  const all = meta.fields.map((f) => f.name);
  if (requested === undefined || requested.length === 0) return all;
  const byLower = new Map(all.map((name) => [name.toLowerCase(), name]));
  const out = new Set<string>(['Id']);
  const hint = hinter(all);
  const unknown: UnknownField[] = [];
  requested.forEach((name, index) => {
    const canonical = byLower.get(name.toLowerCase());
    if (canonical === undefined) {
      unknown.push({ path: `/data/fields/${index}`, field: name, did_you_mean: hint(name) });
    } else {
      out.add(canonical);
    }
  });
  if (unknown.length > 0) {
    throw unknownFields(
      `${meta.name} has no field`,
      unknown,
      `. POST /v1/describe/${meta.name} lists its fields.`,
    );
  }
  return [...out];
}
