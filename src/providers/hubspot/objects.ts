import { ApiError } from '../../errors/index.ts';
import { closestName } from '../../lib/closest.ts';
import type { CrmSession } from '../adapter.ts';
import { parseJson } from '../client/types.ts';
import { crmErrorFromResponse } from '../errors.ts';
import { ACCOUNT_OBJECT_NAMES, accountObject } from './account-objects.ts';
import type { PerConnectionState, PropertyInfo, SchemaSummary } from './connection-state.ts';
import {
  ANNOUNCED_OBJECTS,
  ASSOCIATION_NAMES,
  AUDIT_NAMES,
  HUBSPOT_PROFILE,
  STANDARD_OBJECTS,
  type StandardObject,
} from './profile.ts';

/** An object type as HubSpot's paths take it. */
export interface ObjectRef {
  /** Path segment for `/crm/v3/objects/{path}` and `/crm/v3/properties/{path}`. */
  path: string;
  typeId: string;
  /** The name to show users (`contacts`, or the custom object's name). */
  name: string;
  custom: boolean;
}

/** Lower case without underscores: `Line_Items`, `LINE_ITEM` and `lineitems` meet. */
const key = (name: string): string => name.toLowerCase().replace(/_/g, '');

const STANDARD_BY_KEY = new Map<string, StandardObject>();
for (const o of STANDARD_OBJECTS) {
  for (const n of [o.path, o.typeId, ...o.aliases]) STANDARD_BY_KEY.set(key(n), o);
}
const ANNOUNCED = new Set(ANNOUNCED_OBJECTS.map(key));
const AUDIT = new Set(AUDIT_NAMES.map(key));
const ASSOCIATIONS = new Set(ASSOCIATION_NAMES.map(key));

const SUPPORTED_NAMES = STANDARD_OBJECTS.map((o) => (o.path === 'goal_targets' ? 'goals' : o.path));

function standardObject(name: string): StandardObject | undefined {
  return STANDARD_BY_KEY.get(key(name));
}

/**
 * Resolves a user's object name: standard types by plural, singular, type id or the API's own
 * names (`goals` → goal targets); custom objects by `2-…` id, fully qualified name (`p123_cars`),
 * `p_cars`, or plain name (`cars`) through the schemas API, cached per connection. Owners,
 * associations, audit logs (their own operations), pipelines and stages answer 422; anything else 404.
 */
export async function resolveObject(
  hs: PerConnectionState,
  session: CrmSession,
  name: string,
): Promise<ObjectRef> {
  const standard = standardObject(name);
  if (standard !== undefined) {
    return { path: standard.path, typeId: standard.typeId, name: standard.path, custom: false };
  }
  const account = accountObject(name);
  if (account !== undefined) {
    // What src/providers/hubspot/account-objects.ts offers on each kind.
    const operations =
      account.kind === 'owners'
        ? ['get', 'query']
        : account.kind === 'pipelines'
          ? ['get', 'query', 'insert', 'update']
          : ['get', 'query', 'insert'];
    throw new ApiError(
      'object_not_supported',
      `HubSpot ${name} are not records: the service offers ${operations.join(', ')} on them, not this operation.`,
      { details: [{ object_name: name, operations }] },
    );
  }
  if (ASSOCIATIONS.has(key(name))) {
    throw new ApiError(
      'object_not_supported',
      'HubSpot associations are read with POST /v1/object/associations/{object_name} {"data": {"ids": [...], "to": "companies"}} and written with /v1/object/associate/{object_name} and /v1/object/dissociate/{object_name}.',
      { details: [{ object_name: name, use: '/v1/object/associations/{object_name}' }] },
    );
  }
  if (AUDIT.has(key(name))) {
    throw new ApiError(
      'object_not_supported',
      `HubSpot's audit log of the account (who created, updated or deleted what, and when) is read with POST /v1/audit_logs {"data": {"occurred_after": "2026-01-01T00:00:00Z"}}; one record's history of its properties with get and "propertiesWithHistory": ["property", …] (at most 50 ids), for example POST /v1/object/get/contacts {"data": {"ids": [...], "propertiesWithHistory": ["lifecyclestage"]}}.`,
      { details: [{ object_name: name, use: ['/v1/audit_logs', 'propertiesWithHistory on get'] }] },
    );
  }
  if (ANNOUNCED.has(key(name))) {
    throw new ApiError(
      'object_not_supported',
      `HubSpot ${name} are not supported by this version of the service (announced for a later one). Supported objects: ${SUPPORTED_NAMES.join(', ')} and custom objects. The pass-through (/v1/proxy/…) reaches every HubSpot API meanwhile.`,
      { details: [{ object_name: name, supported_objects: SUPPORTED_NAMES }] },
    );
  }
  const state = hs.of(session.connectionId);
  const load = () => loadSchemas(hs, session);
  let schemas = await state.schemas.getOrLoad('schemas', load);
  let found = matchSchema(schemas, name);
  if (found === undefined) {
    // Created a moment ago? Look again, but not more than once every few seconds.
    schemas = await state.schemas.refresh('schemas', HUBSPOT_PROFILE.refreshOnMissMinMs, load);
    found = matchSchema(schemas, name);
  }
  if (found === undefined) {
    const custom = schemas.map((s) => s.name);
    const hint = closestName(name, [...SUPPORTED_NAMES, ...ACCOUNT_OBJECT_NAMES, ...custom]);
    throw new ApiError(
      'unknown_object',
      `HubSpot has no object type "${name.slice(0, 100)}".${hint === null ? '' : ` Did you mean "${hint}"?`} Supported: ${SUPPORTED_NAMES.join(', ')}${custom.length > 0 ? `; custom objects of this account: ${custom.join(', ')}` : ''}.`,
      {
        details: [
          {
            path: '/object_name',
            object_name: name.slice(0, 100),
            did_you_mean: hint,
            supported_objects: SUPPORTED_NAMES,
            custom_objects: custom,
          },
        ],
      },
    );
  }
  return { path: found.objectTypeId, typeId: found.objectTypeId, name: found.name, custom: true };
}

function matchSchema(schemas: SchemaSummary[], name: string): SchemaSummary | undefined {
  const n = name.toLowerCase();
  return (
    schemas.find((s) => s.objectTypeId === n) ??
    schemas.find((s) => s.fullyQualifiedName.toLowerCase() === n) ??
    schemas.find((s) => `p_${s.name.toLowerCase()}` === n) ??
    schemas.find((s) => s.name.toLowerCase() === n)
  );
}

async function loadSchemas(hs: PerConnectionState, session: CrmSession): Promise<SchemaSummary[]> {
  const response = await hs.call(session, {
    method: 'GET',
    path: `${HUBSPOT_PROFILE.schemasPath}?archived=false&includePropertyDefinitions=false&includeAssociationDefinitions=false`,
    idempotent: true,
    label: 'hubspot.schemas.list',
  });
  if (response.status !== 200)
    throw crmErrorFromResponse('hubspot', response, 'reading custom object schemas');
  const body = parseJson<{ results?: Array<Partial<SchemaSummary>> }>(response);
  return (body?.results ?? []).flatMap((s) =>
    typeof s.objectTypeId === 'string' && typeof s.name === 'string'
      ? [{ objectTypeId: s.objectTypeId, name: s.name, fullyQualifiedName: s.fullyQualifiedName ?? '' }]
      : [],
  );
}

function toInfo(p: Record<string, unknown>): PropertyInfo | undefined {
  if (typeof p['name'] !== 'string') return undefined;
  const options = Array.isArray(p['options']) ? (p['options'] as Array<Record<string, unknown>>) : [];
  const meta = (p['modificationMetadata'] ?? {}) as Record<string, unknown>;
  return {
    name: p['name'],
    type: String(p['type'] ?? 'string'),
    fieldType: String(p['fieldType'] ?? 'text'),
    options: options.flatMap((o) =>
      typeof o['value'] === 'string' ? [{ value: o['value'], label: String(o['label'] ?? o['value']) }] : [],
    ),
    externalOptions: p['externalOptions'] === true,
    hasUniqueValue: p['hasUniqueValue'] === true,
    readOnlyValue: meta['readOnlyValue'] === true || p['calculated'] === true,
  };
}

/** The object type's properties (archived ones left out), cached per connection. */
export async function propertyInfos(
  hs: PerConnectionState,
  session: CrmSession,
  object: ObjectRef,
  options: { refresh?: boolean } = {},
): Promise<PropertyInfo[]> {
  const state = hs.of(session.connectionId);
  const load = async (): Promise<PropertyInfo[]> => {
    const response = await hs.call(session, {
      method: 'GET',
      path: `/crm/v3/properties/${encodeURIComponent(object.path)}?archived=false`,
      idempotent: true,
      label: 'hubspot.properties.list',
    });
    if (response.status !== 200) throw crmErrorFromResponse('hubspot', response, 'reading the property list');
    const body = parseJson<{ results?: Array<Record<string, unknown>> }>(response);
    return (body?.results ?? []).flatMap((p) => toInfo(p) ?? []);
  };
  return options.refresh === true
    ? state.properties.refresh(object.typeId, HUBSPOT_PROFILE.refreshOnMissMinMs, load)
    : state.properties.getOrLoad(object.typeId, load);
}

/** Names of the object type's properties (archived ones left out), cached per connection. */
export async function propertyNames(
  hs: PerConnectionState,
  session: CrmSession,
  object: ObjectRef,
  options: { refresh?: boolean } = {},
): Promise<string[]> {
  return (await propertyInfos(hs, session, object, options)).map((p) => p.name);
}

/** Forget the property list of one object type (after a property was created). */
export function forgetProperties(hs: PerConnectionState, connectionId: string, object: ObjectRef): void {
  hs.of(connectionId).properties.delete(object.typeId);
}
