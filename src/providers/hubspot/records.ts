import type { Handler } from '../adapter.ts';
import { accountObject, getAccountObjects } from './account-objects.ts';
import type { HubSpotApi, PerConnectionState } from './connection-state.ts';
import { checkedProperties, type ObjectRef, propertyInfos, resolveObject } from './objects.ts';
import { HUBSPOT_PROFILE } from './profile.ts';

/** A record as the API answers it: HubSpot's own shape. */
type HubSpotRecord = {
  id: string;
  properties: Record<string, string | null>;
  /** Past values per property, newest first, when asked for. */
  propertiesWithHistory?: Record<string, unknown[]>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
};

interface BatchReadAnswer {
  results?: Array<Partial<HubSpotRecord>>;
  errors?: unknown[];
}

const SYSTEM = new Set<string>(HUBSPOT_PROFILE.systemProperties);

/** Live records by id or by a unique property's values (`idProperty`): one batch/read of at most 100. */
export async function readRecords(
  api: HubSpotApi,
  object: ObjectRef,
  ids: string[],
  options: { idProperty?: string; properties?: string[]; propertiesWithHistory?: string[] } = {},
): Promise<BatchReadAnswer> {
  const answer = await api.json<BatchReadAnswer>({
    method: 'POST',
    path: `/crm/v3/objects/${encodeURIComponent(object.path)}/batch/read?archived=false`,
    body: {
      properties: options.properties ?? ['hs_object_id'],
      propertiesWithHistory: options.propertiesWithHistory ?? [],
      idProperty: options.idProperty,
      inputs: ids.map((id) => ({ id })),
    },
    idempotent: true,
    label: 'hubspot.objects.batch.read',
    ok: [200, 207],
    what: `reading ${object.name}`,
  });
  return answer ?? {};
}

/** One entry per id, `null` where none; HubSpot's error entries and malformed ids (unsent) in `errors`. */
export function hubspotGet(hs: PerConnectionState): Handler<'get'> {
  return async (call, input) => {
    const api = hs.at(call);
    const account = accountObject(input.objectName);
    if (account !== undefined) return getAccountObjects(api, account, input.ids);
    const object = await resolveObject(api, input.objectName);
    const only = await propertiesToRead(api, object, input.fields ?? [], 'fields');
    const properties = only ?? (await propertyInfos(api, object)).map((p) => p.name);
    const history = input.propertiesWithHistory ?? [];
    const withHistory = await propertiesToRead(api, object, history, 'propertiesWithHistory');

    const valid = (id: string) => HUBSPOT_PROFILE.idPattern.test(id);
    const send = [...new Set(input.ids.filter(valid))];
    const errors: unknown[] = input.ids.flatMap((id, index) =>
      valid(id)
        ? []
        : [{ index, id, code: 'malformed_id', message: 'Not a HubSpot record id (decimal digits).' }],
    );
    const found = new Map<string, HubSpotRecord>();
    if (send.length > 0) {
      const body = await readRecords(api, object, send, {
        properties: [...properties],
        propertiesWithHistory: [...(withHistory ?? [])],
      });
      for (const r of body.results ?? []) {
        if (typeof r.id === 'string') found.set(r.id, shape(r, only));
      }
      errors.push(...(body.errors ?? []));
    }
    const data = input.ids.map((id) => found.get(id) ?? null);
    return errors.length === 0 ? { data } : { data, errors };
  };
}

/** The properties named, in HubSpot's spelling (names are case-insensitive here); null when none are. */
async function propertiesToRead(
  api: HubSpotApi,
  object: ObjectRef,
  fields: string[],
  key: string,
): Promise<Set<string> | null> {
  if (fields.length === 0) return null;
  const byLower = await checkedProperties(
    api,
    object,
    fields.map((field, index) => [field, `/data/${key}/${index}`]),
    `. GET /crm/v3/properties/${object.path} (through /v1/proxy) lists them.`,
  );
  return new Set(fields.map((field) => byLower.get(field.toLowerCase())?.name ?? field));
}

/** HubSpot's record shape; with `fields`, `properties` holds those (`null` if unset) and the system ones. */
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
