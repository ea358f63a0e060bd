import type { CrmRecord, GetAnswer, IdError } from '../../domain/operations.ts';
import type { UnknownField } from '../../errors/index.ts';
import { hinter } from '../../lib/closest.ts';
import { parseJson } from '../client/types.ts';
import { crmErrorFromResponse } from '../errors.ts';
import { knownObject, type ObjectDescribe } from './describe.ts';
import { noSuchFields } from './format.ts';
import { type Org, type OrgHandler, send } from './org.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

const NOT_AN_ID = 'Not a Salesforce id (15 or 18 letters and digits).';

/** `[a,b]` + `[c]` → `[a,b,c]`, on JSON array texts. */
export function joinJsonArrays(texts: string[]): string {
  const inner = texts.map((t) => t.slice(1, -1).trim()).filter((t) => t !== '');
  return `[${inner.join(',')}]`;
}

/** One sObject Collections retrieve (one entry or `null` per id); POST takes 2,000 ids, a GET URL ~800. */
async function retrieve(org: Org, objectName: string, ids: string[], fields: string[]) {
  const response = await send(org, 'collections retrieve', 'collections.retrieve', {
    method: 'POST',
    url: `${org.api}/composite/sobjects/${encodeURIComponent(objectName)}`,
    json: { ids, fields },
    // A retrieve only reads, so it may be resent after a timeout or a dropped connection.
    idempotent: true,
  });
  const text = response.text.trim();
  if (response.status !== 200 || !text.startsWith('[') || !text.endsWith(']')) {
    throw crmErrorFromResponse('salesforce', response, `retrieve ${objectName}`);
  }
  return response;
}

/**
 * Get records by id: one entry per id, in order, `null` where none exists; duplicates are fetched
 * once. Malformed ids and ids of another object are answered `null` unsent (as Salesforce would),
 * and malformed ones are listed in `errors` so a typo shows without failing the request.
 */
export const salesforceGet: OrgHandler<'get'> = async (org, input): Promise<GetAnswer> => {
  const meta = await knownObject(org, input.objectName);
  const fields = resolveFields(meta, input.fields);

  const errors: IdError[] = [];
  const wanted = new Set<string>();
  input.ids.forEach((id, index) => {
    if (!SALESFORCE_PROFILE.idPattern.test(id)) {
      errors.push({ index, id, code: 'malformed_id', message: NOT_AN_ID });
    } else if (meta.keyPrefix == null || id.startsWith(meta.keyPrefix)) {
      wanted.add(id);
    }
  });

  const unique = [...wanted];
  const size = SALESFORCE_PROFILE.retrieveMaxIds;
  const chunks = Array.from({ length: Math.ceil(unique.length / size) }, (_, k) =>
    unique.slice(k * size, (k + 1) * size),
  );
  const answers = await Promise.all(
    chunks.map((chunk) => org.limiter.run(() => retrieve(org, meta.name, chunk, fields))),
  );
  if (errors.length === 0 && unique.length === input.ids.length) {
    // Every id distinct and sent: the CRM's arrays are the answer, passed on without a parse.
    return { json: `{"data":${joinJsonArrays(answers.map((a) => a.text.trim()))}}` };
  }
  const found = new Map<string, CrmRecord | null>();
  chunks.forEach((chunk, c) => {
    const answer = answers[c] as (typeof answers)[number];
    const got = parseJson<Array<CrmRecord | null>>(answer);
    if (!Array.isArray(got) || got.length !== chunk.length) {
      throw crmErrorFromResponse('salesforce', answer, `retrieve ${meta.name}`);
    }
    for (const [i, id] of chunk.entries()) found.set(id, got[i] ?? null);
  });
  const data = input.ids.map((id) => found.get(id) ?? null);
  return errors.length === 0 ? { data } : { data, errors };
};

/** The fields to ask for (retrieve needs a list): all when none are given, else those named, canonical, with `Id`. */
function resolveFields(meta: ObjectDescribe, requested: string[] | undefined): string[] {
  const all = meta.fields.map((f) => f.name);
  if (requested === undefined || requested.length === 0) return all;
  const byLower = new Map(all.map((name) => [name.toLowerCase(), name]));
  const out = new Set<string>(['Id']);
  const hint = hinter(all);
  const unknown: UnknownField[] = [];
  requested.forEach((name, index) => {
    const canonical = byLower.get(name.toLowerCase());
    if (canonical !== undefined) out.add(canonical);
    else unknown.push({ path: `/data/fields/${index}`, field: name, did_you_mean: hint(name) });
  });
  if (unknown.length > 0) throw noSuchFields(meta, unknown);
  return [...out];
}
