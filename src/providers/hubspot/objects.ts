import { ApiError, type ErrorDetail, unknownFields } from '../../errors/index.ts';
import { closestName, hinter } from '../../lib/closest.ts';
import type { Handler } from '../adapter.ts';
import { parseJson } from '../client/types.ts';
import { crmErrorFromResponse } from '../errors.ts';
import { ACCOUNT_OBJECT_NAMES, accountObject, OFFERED } from './account-objects.ts';
import type { HubSpotApi, PerConnectionState, PropertyInfo, SchemaSummary } from './connection-state.ts';
import {
  ASSOCIATION_NAMES,
  AUDIT_NAMES,
  FIELD_TYPES_BY_TYPE,
  HUBSPOT_PROFILE,
  STANDARD_OBJECTS,
} from './profile.ts';

/** An object type: its path segment in HubSpot's paths, and the name shown to users. */
export interface ObjectRef {
  path: string;
  typeId: string;
  name: string;
  custom: boolean;
}

/** Lower case without underscores: `Line_Items`, `LINE_ITEM` and `lineitems` meet. */
const key = (name: string): string => name.toLowerCase().replace(/_/g, '');

const STANDARD_BY_KEY = new Map<string, (typeof STANDARD_OBJECTS)[number]>();
for (const o of STANDARD_OBJECTS) {
  for (const n of [o.path, o.typeId, ...o.aliases]) STANDARD_BY_KEY.set(key(n), o);
}
const AUDIT = new Set(AUDIT_NAMES.map(key));
const ASSOCIATIONS = new Set(ASSOCIATION_NAMES.map(key));

const SUPPORTED_NAMES = STANDARD_OBJECTS.map((o) => (o.path === 'goal_targets' ? 'goals' : o.path));

/** A user's object name as a type (custom ones through the cached schemas); 422 for non-records, else 404. */
export async function resolveObject(api: HubSpotApi, name: string): Promise<ObjectRef> {
  const standard = STANDARD_BY_KEY.get(key(name));
  if (standard !== undefined) {
    return { path: standard.path, typeId: standard.typeId, name: standard.path, custom: false };
  }
  const account = accountObject(name);
  if (account !== undefined) {
    const { operations } = OFFERED[account.kind];
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
  const load = () => loadSchemas(api);
  let schemas = await api.state.schemas.getOrLoad('schemas', load);
  let found = matchSchema(schemas, name);
  if (found === undefined) {
    // Created a moment ago? Look again, at most every few seconds.
    schemas = await api.state.schemas.refresh('schemas', HUBSPOT_PROFILE.refreshOnMissMinMs, load);
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

async function loadSchemas(api: HubSpotApi): Promise<SchemaSummary[]> {
  const body = await api.get<{ results?: Array<Partial<SchemaSummary>> }>(
    `${HUBSPOT_PROFILE.schemasPath}?archived=false&includePropertyDefinitions=false&includeAssociationDefinitions=false`,
    'hubspot.schemas.list',
    'reading custom object schemas',
  );
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

/** The live properties of a type as HubSpot lists them; `what` names the read in errors. */
const listProperties = (api: HubSpotApi, object: ObjectRef, what: string) =>
  api.get<{ results?: Array<Record<string, unknown>> }>(
    `/crm/v3/properties/${encodeURIComponent(object.path)}?archived=false`,
    'hubspot.properties.list',
    what,
  );

/** The object type's properties, cached per connection. */
export async function propertyInfos(
  api: HubSpotApi,
  object: ObjectRef,
  refresh = false,
): Promise<PropertyInfo[]> {
  const load = async (): Promise<PropertyInfo[]> => {
    const body = await listProperties(api, object, 'reading the property list');
    return (body?.results ?? []).flatMap((p) => toInfo(p) ?? []);
  };
  return refresh
    ? api.state.properties.refresh(object.typeId, HUBSPOT_PROFILE.refreshOnMissMinMs, load)
    : api.state.properties.getOrLoad(object.typeId, load);
}

/** Properties by lower-case name once every name used exists (after a fresh look), else a 400 with hints. */
export async function checkedProperties(
  api: HubSpotApi,
  object: ObjectRef,
  used: Array<[name: string, path: string]>,
  fix: string,
): Promise<Map<string, PropertyInfo>> {
  const index = (list: PropertyInfo[]) => new Map(list.map((p) => [p.name.toLowerCase(), p]));
  let byLower = index(await propertyInfos(api, object));
  const unknown = () => used.filter(([name]) => !byLower.has(name.toLowerCase()));
  if (unknown().length > 0) byLower = index(await propertyInfos(api, object, true));
  if (unknown().length > 0) {
    const hint = hinter([...byLower.values()].map((p) => p.name));
    const fields = unknown().map(([field, path]) => ({ path, field, did_you_mean: hint(field) }));
    throw unknownFields(`HubSpot ${object.name} have no property`, fields, fix);
  }
  return byLower;
}

/** The account's object types (standard and custom), or one type with HubSpot's own properties list. */
export function hubspotDescribe(hs: PerConnectionState): Handler<'describe'> {
  return async (call, input) => {
    const api = hs.at(call);
    if (input.objectName === undefined) {
      const path = `${HUBSPOT_PROFILE.schemasPath}?archived=false`;
      const answer = await api.get<{ results?: Array<Record<string, unknown>> }>(
        path,
        'hubspot.schemas.list',
        'reading object schemas',
      );
      return {
        objects: [
          ...STANDARD_OBJECTS.map((o) => ({ name: o.path, objectTypeId: o.typeId, custom: false })),
          ...(answer?.results ?? []).map((s) => ({
            name: s['name'],
            objectTypeId: s['objectTypeId'],
            fullyQualifiedName: s['fullyQualifiedName'],
            labels: s['labels'],
            custom: true,
          })),
        ],
      };
    }
    const object = await resolveObject(api, input.objectName);
    const answer = await listProperties(api, object, `reading the properties of ${object.name}`);
    const properties = answer?.results ?? [];
    return { name: object.name, objectTypeId: object.typeId, custom: object.custom, properties };
  };
}

const REQUIRED = ['name', 'label', 'type', 'fieldType', 'groupName'] as const;

/** Checked before anything reaches HubSpot, so a bad definition is a 400 naming the field. */
function checkPropertyDefinition(definition: Record<string, unknown>): void {
  const missing = REQUIRED.filter((k) => typeof definition[k] !== 'string' || definition[k] === '');
  if (missing.length > 0) {
    throw invalid(
      `A HubSpot property needs ${REQUIRED.join(', ')}; missing or not a non-empty string: ${missing.join(', ')}.`,
      missing.map((k) => ({ path: `/data/${k}`, message: 'required (non-empty string)' })),
    );
  }
  const type = String(definition['type']);
  const fieldType = String(definition['fieldType']);
  const allowed = Object.hasOwn(FIELD_TYPES_BY_TYPE, type) ? FIELD_TYPES_BY_TYPE[type] : undefined;
  if (allowed === undefined) {
    const types = Object.keys(FIELD_TYPES_BY_TYPE);
    throw invalid(`"${type.slice(0, 50)}" is not a HubSpot property type. Use one of: ${types.join(', ')}.`, [
      { path: '/data/type', value: type.slice(0, 50), allowed_types: types },
    ]);
  }
  if (!allowed.includes(fieldType)) {
    throw invalid(
      `HubSpot refuses fieldType "${fieldType.slice(0, 50)}" for type "${type}". Allowed fieldTypes for ${type}: ${allowed.join(', ')}.`,
      [{ path: '/data/fieldType', type, value: fieldType.slice(0, 50), allowed_field_types: [...allowed] }],
    );
  }
  const options = definition['options'];
  if (type === 'enumeration' && (!Array.isArray(options) || options.length === 0)) {
    throw invalid('An enumeration property needs `options`: a non-empty array of {label, value}.', [
      { path: '/data/options', message: 'required for type enumeration' },
    ]);
  }
  const formula = definition['calculationFormula'];
  if (fieldType === 'calculation_equation' && (typeof formula !== 'string' || formula === '')) {
    throw invalid('fieldType calculation_equation needs a `calculationFormula`.', [
      { path: '/data/calculationFormula', message: 'required for fieldType calculation_equation' },
    ]);
  }
}

/** Creates a property (`POST /crm/v3/properties/{objectType}`) and answers it whole. */
export function hubspotAddCustomField(hs: PerConnectionState): Handler<'add_custom_field'> {
  return async (call, { objectName, definition }) => {
    checkPropertyDefinition(definition);
    const api = hs.at(call);
    const object = await resolveObject(api, objectName);
    const response = await api.send({
      method: 'POST',
      path: `/crm/v3/properties/${encodeURIComponent(object.path)}`,
      body: definition,
      idempotent: false,
      label: 'hubspot.properties.create',
    });
    if (response.status === 201 || response.status === 200) {
      await api.propertiesChanged();
      const data = parseJson<Record<string, unknown>>(response) ?? {};
      return {
        data,
        message: `Property "${String(data['name'] ?? definition['name'])}" created on HubSpot ${object.name}.`,
      };
    }
    const crm = parseJson<{ message?: string }>(response);
    const crmMessage = typeof crm?.message === 'string' ? crm.message : `status ${response.status}`;
    const details = [
      { provider: 'hubspot', status: response.status, crm_error: crm ?? response.text.slice(0, 500) },
    ];
    if (response.status === 409) {
      throw new ApiError(
        'field_already_exists',
        `HubSpot ${object.name} already have a property named "${String(definition['name'])}" (HubSpot: ${crmMessage}). Choose another name.`,
        { details },
      );
    }
    if (response.status === 400) throw invalid(`HubSpot refused the property: ${crmMessage}`, details);
    throw crmErrorFromResponse('hubspot', response, 'creating the property');
  };
}

function invalid(message: string, details: ErrorDetail[]): ApiError {
  return new ApiError('invalid_field_definition', message, { details });
}
