import { type UnknownField, unknownFields } from '../../errors/index.ts';
import { hinter } from '../../lib/closest.ts';
import type { CrmSession } from '../adapter.ts';
import { parseJson } from '../client/types.ts';
import { crmErrorFromResponse } from '../errors.ts';
import type { PerConnectionState } from './connection-state.ts';
import { type ObjectRef, propertyNames, resolveObject } from './objects.ts';
import { HUBSPOT_PROFILE } from './profile.ts';

/** A record as the API answers it: HubSpot's own shape. */
export type HubSpotRecord = {
  id: string;
  properties: Record<string, string | null>;
  /** Past values per property, newest first (`{value, timestamp, sourceType, …}`), when asked for. */
  propertiesWithHistory?: Record<string, unknown[]>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
};

interface BatchReadAnswer {
  results?: Array<Partial<HubSpotRecord>>;
  errors?: unknown[];
}

/** The answer of a get: one entry per id, in order, and HubSpot's own error entries when there are any. */
export interface HubSpotGetResult {
  data: Array<HubSpotRecord | null>;
  errors?: unknown[];
}

/** Run under the connection's concurrency cap. */
export type Limiter = { run<T>(fn: () => Promise<T>): Promise<T> };

const SYSTEM = new Set<string>(HUBSPOT_PROFILE.systemProperties);

/**
 * Get records by id with one batch/read call: one entry per id passed, in
 * order, `null` where HubSpot has no record. HubSpot's own error entries (its `OBJECT_NOT_FOUND`
 * listing the missing ids) are passed on in `errors`; ids that cannot be HubSpot ids (not digits)
 * are not sent and are listed there too, with code `malformed_id`.
 */
export async function getHubSpotRecords(
  hs: PerConnectionState,
  session: CrmSession,
  limiter: Limiter,
  objectName: string,
  ids: string[],
  fields: string[] | undefined,
  history: string[] = [],
): Promise<HubSpotGetResult> {
  const object = await resolveObject(hs, session, objectName);
  const wanted = await propertiesToRead(hs, session, object, fields);
  const withHistory =
    history.length === 0
      ? []
      : [...((await propertiesToRead(hs, session, object, history, 'propertiesWithHistory')).only ?? [])];

  const errors: unknown[] = [];
  const send: string[] = [];
  ids.forEach((id, index) => {
    if (!HUBSPOT_PROFILE.idPattern.test(id)) {
      errors.push({ index, id, code: 'malformed_id', message: 'Not a HubSpot record id (decimal digits).' });
    } else if (!send.includes(id)) {
      send.push(id);
    }
  });

  const found = new Map<string, HubSpotRecord>();
  if (send.length > 0) {
    const response = await limiter.run(() =>
      hs.call(session, {
        method: 'POST',
        path: `/crm/v3/objects/${encodeURIComponent(object.path)}/batch/read?archived=false`,
        body: {
          properties: wanted.names,
          propertiesWithHistory: withHistory,
          inputs: send.map((id) => ({ id })),
        },
        idempotent: true,
        label: 'hubspot.objects.batch.read',
      }),
    );
    if (response.status !== 200 && response.status !== 207) {
      throw crmErrorFromResponse('hubspot', response, `reading ${object.name}`);
    }
    const body = parseJson<BatchReadAnswer>(response) ?? {};
    for (const r of body.results ?? []) {
      if (typeof r.id === 'string') found.set(r.id, shape(r, wanted.only));
    }
    errors.push(...(body.errors ?? []));
  }
  const data = ids.map((id) => found.get(id) ?? null);
  return errors.length === 0 ? { data } : { data, errors };
}

/**
 * The property names to ask for: every property of the type when `fields` is absent or empty,
 * else the given ones in HubSpot's spelling (names are case-insensitive here). Unknown names fail
 * with the closest real one as a hint, after one look at a fresh property list.
 */
async function propertiesToRead(
  hs: PerConnectionState,
  session: CrmSession,
  object: ObjectRef,
  fields: string[] | undefined,
  key = 'fields',
): Promise<{ names: string[]; only: Set<string> | null }> {
  let all = await propertyNames(hs, session, object);
  if (fields === undefined || fields.length === 0) return { names: all, only: null };
  const lookup = (names: string[]) => new Map(names.map((n) => [n.toLowerCase(), n]));
  let byLower = lookup(all);
  if (fields.some((f) => !byLower.has(f.toLowerCase()))) {
    all = await propertyNames(hs, session, object, { refresh: true });
    byLower = lookup(all);
  }
  const unknown: UnknownField[] = [];
  const names = new Set<string>();
  const hint = hinter(all);
  fields.forEach((field, index) => {
    const canonical = byLower.get(field.toLowerCase());
    if (canonical === undefined) {
      unknown.push({ path: `/data/${key}/${index}`, field, did_you_mean: hint(field) });
    } else {
      names.add(canonical);
    }
  });
  if (unknown.length > 0) {
    throw unknownFields(
      `HubSpot ${object.name} have no property`,
      unknown,
      `. GET /crm/v3/properties/${object.path} (through /v1/proxy) lists them.`,
    );
  }
  return { names: [...names], only: names };
}

/**
 * HubSpot's own record shape. With `fields` given, `properties` holds exactly those (`null` when unset) and
 * the type's system properties (creation date, modification date, `hs_object_id`).
 */
function shape(r: Partial<HubSpotRecord>, only: Set<string> | null): HubSpotRecord {
  const source = r.properties ?? {};
  let properties: Record<string, string | null> = source;
  if (only !== null) {
    properties = {};
    for (const name of Object.keys(source).sort()) {
      if (only.has(name) || SYSTEM.has(name)) properties[name] = source[name] ?? null;
    }
    // Own properties only: a field named `constructor` or `toString` is unset, not inherited.
    for (const name of only) if (!Object.hasOwn(properties, name)) properties[name] = null;
  }
  return {
    id: String(r.id),
    properties,
    ...(r.propertiesWithHistory === undefined ? {} : { propertiesWithHistory: r.propertiesWithHistory }),
    createdAt: String(r.createdAt ?? ''),
    updatedAt: String(r.updatedAt ?? ''),
    archived: r.archived === true,
  };
}
