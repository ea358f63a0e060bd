import type { UpsertOutcome } from '../../domain/operations.ts';
import { ApiError } from '../../errors/index.ts';

/**
 * `associations` in an insert or upsert record, in HubSpot's own create-body shape
 * (`PublicAssociationsForObject[]`: `[{"to": {"id"}, "types": [{"associationCategory",
 * "associationTypeId"}]}]`), sent with the create as HubSpot takes it. HubSpot sets associations
 * only on create (its update and upsert bodies have none).
 * https://developers.hubspot.com/docs/api-reference/latest/crm/using-object-apis
 */
export interface CreateAssociation {
  to: { id: string };
  types: Array<{ associationCategory?: string; associationTypeId: number }>;
}

const SHAPE =
  'a list of {"to": {"id": "<record id>"}, "types": [{"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": <id>}]}';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const invalid = (path: string, message: string) =>
  new ApiError(
    'invalid_body',
    `${path}: ${message} Send ${SHAPE}; GET /crm/v4/associations/{from}/{to}/labels (through /v1/proxy) lists the type ids.`,
    {
      details: [{ path, message }],
    },
  );

function entryOf(raw: unknown, path: string): CreateAssociation {
  const to = isRecord(raw) && isRecord(raw['to']) ? raw['to']['id'] : undefined;
  if (typeof to !== 'string' && typeof to !== 'number')
    throw invalid(`${path}/to/id`, 'needs the id of the record to associate.');
  const types = isRecord(raw) ? raw['types'] : undefined;
  if (!Array.isArray(types) || types.length === 0)
    throw invalid(`${path}/types`, 'needs at least one association type.');
  return {
    to: { id: String(to) },
    types: types.map((t, j) => {
      const id = isRecord(t) ? t['associationTypeId'] : undefined;
      const category = isRecord(t) ? t['associationCategory'] : undefined;
      if (typeof id !== 'number' || !Number.isInteger(id))
        throw invalid(`${path}/types/${j}/associationTypeId`, 'must be an integer association type id.');
      if (category !== undefined && typeof category !== 'string')
        throw invalid(
          `${path}/types/${j}/associationCategory`,
          'must be HUBSPOT_DEFINED, USER_DEFINED or INTEGRATOR_DEFINED.',
        );
      return { ...(category === undefined ? {} : { associationCategory: category }), associationTypeId: id };
    }),
  };
}

/** The record without its `associations` key, and the associations checked (undefined when absent). */
export function takeAssociations(
  record: Record<string, unknown>,
  index: number,
): { rest: Record<string, unknown>; associations: CreateAssociation[] | undefined } {
  const key = Object.keys(record).find((k) => k.toLowerCase() === 'associations');
  if (key === undefined) return { rest: record, associations: undefined };
  const raw = record[key];
  const path = `/data/${index}/${key}`;
  if (!Array.isArray(raw)) throw invalid(path, 'must be a list.');
  const rest = Object.fromEntries(Object.entries(record).filter(([k]) => k !== key));
  return { rest, associations: raw.map((entry, i) => entryOf(entry, `${path}/${i}`)) };
}

/**
 * Insert records without their `associations` (checked), and those associations by position.
 * Updates keep their records as they are: HubSpot's update body has no associations.
 */
export function splitAssociations(
  records: unknown[],
  mode: 'insert' | 'update',
): { records: unknown[]; links: Map<number, CreateAssociation[]> } {
  const links = new Map<number, CreateAssociation[]>();
  if (mode === 'update') return { records, links };
  const plain = records.map((r, i) => {
    if (!isRecord(r)) return r;
    const taken = takeAssociations(r, i);
    if (taken.associations !== undefined) links.set(i, taken.associations);
    return taken.rest;
  });
  return { records: plain, links };
}

/** An upsert that found its record refuses `associations` unwritten: HubSpot sets them on create only. */
export function associationsOnUpdate(objectName: string, id: string): UpsertOutcome {
  const message = `The ${objectName} record ${id} exists and HubSpot sets associations only when it creates a record: nothing was written. Send the update without "associations" and link the records with POST /v1/object/associate/${objectName}.`;
  const error = { statusCode: 'ASSOCIATIONS_ON_UPDATE', message, fields: ['associations'] };
  return { action: 'update', result: { id, success: false, errors: [error] } };
}
