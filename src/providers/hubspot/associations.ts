import type {
  AssociationKind,
  AssociationLink,
  RecordAssociations,
  RecordError,
  SaveResult,
  WriteAnswer,
} from '../../domain/operations.ts';
import { closestName } from '../../lib/closest.ts';
import type { OperationHandlers, OperationInputs } from '../adapter.ts';
import type { HubSpotApi, PerConnectionState } from './connection-state.ts';
import { type ObjectRef, resolveObject } from './objects.ts';
import { HUBSPOT_PROFILE } from './profile.ts';
import {
  chunks,
  contextList,
  fail,
  failed,
  failedCall,
  type HubSpotErrorEntry,
  malformedId,
  written,
} from './write-results.ts';

/** Writes go by 100 so a failed call fails few links. */
const READ_BATCH = 1_000;
const WRITE_BATCH = 100;

interface V4Type {
  category?: string;
  typeId?: number;
  label?: string | null;
}

const path = (from: ObjectRef, to: ObjectRef, rest: string) =>
  `/crm/v4/associations/${encodeURIComponent(from.path)}/${encodeURIComponent(to.path)}/${rest}`;

const kind = (t: V4Type): AssociationKind => ({
  category: String(t.category ?? ''),
  typeId: Number(t.typeId),
  label: typeof t.label === 'string' ? t.label : null,
});

type Link = AssociationLink & { index: number };
type ReadyLink = Link & { type: AssociationKind | undefined };
type Results = Array<SaveResult | undefined>;

interface BatchReadAnswer {
  results?: Array<{
    from?: { id?: unknown };
    to?: Array<{ toObjectId?: unknown; associationTypes?: V4Type[] }>;
  }>;
}

async function read(api: HubSpotApi, input: OperationInputs['associations']) {
  const from = await resolveObject(api, input.objectName);
  const to = await resolveObject(api, input.to);
  const valid = [...new Set(input.ids.filter((id) => HUBSPOT_PROFILE.idPattern.test(id)))];
  const found = new Map<string, RecordAssociations['to']>();
  await Promise.all(
    chunks(valid, READ_BATCH).map(async (ids) => {
      const answer = await api.json<BatchReadAnswer>({
        method: 'POST',
        path: path(from, to, 'batch/read'),
        body: { inputs: ids.map((id) => ({ id })) },
        idempotent: true,
        label: 'hubspot.associations.batch.read',
        // 207 lists ids without associations in `errors`.
        ok: [200, 207],
        what: `reading ${from.name} → ${to.name} associations`,
      });
      for (const r of answer?.results ?? []) {
        const targets = (r.to ?? []).map((t) => ({
          id: String(t.toObjectId),
          types: (t.associationTypes ?? []).map(kind),
        }));
        found.set(String(r.from?.id), targets);
      }
    }),
  );
  return { data: input.ids.map((id) => ({ id, to: found.get(id) ?? [] })) };
}

/** The association type a create link names (its label, or HubSpot's default), or why there is none. */
function linkType(
  link: Link,
  kinds: AssociationKind[],
  from: ObjectRef,
  to: ObjectRef,
): AssociationKind | RecordError {
  const type =
    link.label === undefined
      ? kinds.find((k) => k.category === 'HUBSPOT_DEFINED' && k.label === null)
      : (kinds.find((k) => k.label === link.label) ??
        kinds.find((k) => k.label?.toLowerCase() === link.label?.toLowerCase()));
  if (type !== undefined) return type;
  const labels = kinds.flatMap((k) => (k.label === null ? [] : [k.label]));
  const hint = link.label === undefined ? null : closestName(link.label, labels);
  return fail(
    'INVALID_ASSOCIATION_LABEL',
    link.label === undefined
      ? `HubSpot has no default association from ${from.name} to ${to.name}; name a label (${labels.join(', ') || 'none defined'}).`
      : `"${link.label.slice(0, 100)}" is not a label from ${from.name} to ${to.name}.${hint === null ? '' : ` Did you mean "${hint}"?`} Labels: ${labels.join(', ') || 'none'}.`,
  );
}

/** Each link the answer's errors name (by id, or by from and to ids) gets that error. */
function markErrors(batch: ReadyLink[], errors: HubSpotErrorEntry[], results: Results): void {
  for (const e of errors) {
    const ids = new Set(contextList(e, 'ids'));
    const fromIds = new Set(contextList(e, 'fromObjectId'));
    const toIds = new Set(contextList(e, 'toObjectId'));
    for (const l of batch) {
      const named =
        ids.has(l.id) || ids.has(l.toId) || (fromIds.has(l.id) && (toIds.size === 0 || toIds.has(l.toId)));
      if (!named) continue;
      const error = fail(
        String(e.category ?? 'ERROR'),
        String(e.message ?? 'HubSpot refused this association.'),
      );
      results[l.index] = failed(l.id, [error]);
    }
  }
}

/** One batch of links of one target type, each link's result set in `results`. */
async function writeBatch(
  api: HubSpotApi,
  batch: ReadyLink[],
  from: ObjectRef,
  to: ObjectRef,
  mode: 'create' | 'archive',
  results: Results,
): Promise<void> {
  const inputs = batch.map((l) =>
    mode === 'create'
      ? {
          from: { id: l.id },
          to: { id: l.toId },
          types: [{ associationCategory: l.type?.category, associationTypeId: l.type?.typeId }],
        }
      : { from: { id: l.id }, to: [{ id: l.toId }] },
  );
  const what = `association batch ${mode}`;
  let answer: { errors?: HubSpotErrorEntry[] } | undefined;
  try {
    answer = await api.json({
      method: 'POST',
      path: path(from, to, `batch/${mode}`),
      body: { inputs },
      // Associating twice leaves one association; removing twice removes it once.
      idempotent: true,
      label: `hubspot.associations.batch.${mode}`,
      ok: [200, 201, 204, 207],
      what,
    });
  } catch (error) {
    const entry = failedCall(error, what, 'link');
    for (const l of batch) results[l.index] = failed(l.id, [entry]);
    return;
  }
  markErrors(batch, answer?.errors ?? [], results);
  for (const l of batch) results[l.index] ??= written(l.id);
}

/** Links grouped by target type; malformed ids and unknown labels are refused, the others sent in batches. */
async function write(
  api: HubSpotApi,
  input: OperationInputs['associate'],
  mode: 'create' | 'archive',
): Promise<WriteAnswer> {
  const from = await resolveObject(api, input.objectName);
  const results: Results = input.links.map(() => undefined);
  const groups = new Map<string, Link[]>();
  for (const [index, link] of input.links.entries()) {
    const group = groups.get(link.to.toLowerCase());
    if (group === undefined) groups.set(link.to.toLowerCase(), [{ ...link, index }]);
    else group.push({ ...link, index });
  }
  for (const group of groups.values()) {
    const to = await resolveObject(api, (group[0] as AssociationLink).to);
    const labels =
      mode === 'create'
        ? await api.get<{ results?: V4Type[] }>(
            path(from, to, 'labels'),
            'hubspot.associations.labels',
            'reading association labels',
          )
        : undefined;
    const kinds = (labels?.results ?? []).map(kind);
    const ready: ReadyLink[] = [];
    for (const link of group) {
      const bad = [link.id, link.toId].find((id) => !HUBSPOT_PROFILE.idPattern.test(id));
      let type = mode === 'create' ? linkType(link, kinds, from, to) : undefined;
      if (bad !== undefined) type = malformedId(bad);
      if (type !== undefined && 'statusCode' in type) results[link.index] = failed(link.id, [type]);
      else ready.push({ ...link, type });
    }
    await Promise.all(
      chunks(ready, WRITE_BATCH).map((batch) => writeBatch(api, batch, from, to, mode, results)),
    );
  }
  const notProcessed = fail('CRM_PROXY_NO_RESULT', 'Not processed.');
  return { data: results.map((r, i) => r ?? failed(input.links[i]?.id ?? '', [notProcessed])) };
}

/** Associations (v4): read, create (by label, or the default type) and remove; results in input order. */
export function hubspotAssociations(hs: PerConnectionState) {
  return {
    associations: (call, input) => read(hs.at(call), input),
    associate: (call, input) => write(hs.at(call), input, 'create'),
    dissociate: (call, input) => write(hs.at(call), input, 'archive'),
  } satisfies OperationHandlers;
}
