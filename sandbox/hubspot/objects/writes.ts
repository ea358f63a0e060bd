import type { Portal } from '../model/portal.ts';
import type { ObjectTypeDefinition, StoredRecord } from '../model/types.ts';
import { type PropertyValueError, validateValues } from '../model/values.ts';
import { identityProperties } from './view.ts';

export type WriteFailure =
  | { kind: 'validation'; errors: PropertyValueError[] }
  | { kind: 'conflict'; message: string; existingId: string }
  | { kind: 'notFound'; id: string };

export type WriteResult =
  | { ok: true; record: StoredRecord; names: string[] }
  | { ok: false; failure: WriteFailure };

const isContacts = (type: ObjectTypeDefinition) => type.objectTypeId === '0-1';

/** Properties whose values identify one record: contact `email` and every `hasUniqueValue` property. */
export function isUniqueProperty(portal: Portal, type: ObjectTypeDefinition, name: string): boolean {
  if (name === 'hs_object_id') return true;
  if (isContacts(type) && name === 'email') return true;
  return portal.properties.peek(type.objectTypeId, name)?.hasUniqueValue === true;
}

/** The live (or archived) record whose `idProperty` (default: the record id) equals `value`. */
export function findRecord(
  portal: Portal,
  type: ObjectTypeDefinition,
  value: string,
  idProperty?: string,
  archived = false,
): StoredRecord | undefined {
  if (idProperty === undefined || idProperty === 'hs_object_id') {
    return portal.records.get(type.objectTypeId, value, { archived });
  }
  return portal.records.findBy(type.objectTypeId, idProperty, value, {
    archived,
    caseInsensitive: idProperty === 'email',
  });
}

/** Values HubSpot derives on a write (contact email domain, company website from domain, …). */
function derived(
  type: ObjectTypeDefinition,
  values: Record<string, string>,
  creating: boolean,
  id?: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (isContacts(type)) {
    if (values['email'] !== undefined)
      out['hs_email_domain'] = values['email'].split('@')[1]?.toLowerCase() ?? '';
    if (creating) {
      out['hs_is_contact'] = 'true';
      out['hs_is_unworked'] = 'true';
      out['hs_pipeline'] = 'contacts-lifecycle-pipeline';
      if (id !== undefined) out['hs_all_contact_vids'] = id;
    }
  }
  if (type.objectTypeId === '0-2' && creating && values['domain'] && values['website'] === undefined) {
    out['website'] = values['domain'];
  }
  return out;
}

/** First unique-value clash with another live record, if any. */
function uniqueClash(
  portal: Portal,
  type: ObjectTypeDefinition,
  values: Record<string, string>,
  selfId?: string,
): WriteFailure | undefined {
  for (const [name, value] of Object.entries(values)) {
    if (value === '' || name === 'hs_object_id' || !isUniqueProperty(portal, type, name)) continue;
    const other = portal.records.findBy(type.objectTypeId, name, value, {
      caseInsensitive: name === 'email',
    });
    if (other === undefined || other.id === selfId) continue;
    // Captured for contacts (409 CONFLICT "Contact already exists. Existing ID: N"); same shape used for
    // other unique properties (their exact live text is unconfirmed).
    const label = isContacts(type) ? 'Contact' : type.labels.singular;
    return {
      kind: 'conflict',
      message: `${label} already exists. Existing ID: ${other.id}`,
      existingId: other.id,
    };
  }
  return undefined;
}

function requiredMissing(type: ObjectTypeDefinition, values: Record<string, string>): PropertyValueError[] {
  if (!type.custom) return [];
  return type.requiredProperties
    .filter((n) => values[n] === undefined || values[n] === '')
    .map((name) => ({ name, code: 'REQUIRED_PROPERTY', message: `Required property "${name}" is missing` }));
}

/** A create that passed every check, ready to commit. */
export interface CheckedCreate {
  values: Record<string, string>;
}

/** Validation, required properties and uniqueness of a create, without writing anything. */
export function checkCreate(
  portal: Portal,
  type: ObjectTypeDefinition,
  input: Record<string, unknown>,
): { ok: true; checked: CheckedCreate } | { ok: false; failure: WriteFailure } {
  const checked = validateValues(portal, type, input);
  if (!checked.ok) return { ok: false, failure: { kind: 'validation', errors: checked.errors } };
  const missing = requiredMissing(type, checked.values);
  if (missing.length > 0) return { ok: false, failure: { kind: 'validation', errors: missing } };
  const clash = uniqueClash(portal, type, checked.values);
  if (clash !== undefined) return { ok: false, failure: clash };
  return { ok: true, checked: { values: checked.values } };
}

export function commitCreate(
  portal: Portal,
  type: ObjectTypeDefinition,
  checked: CheckedCreate,
): StoredRecord {
  const record = portal.records.create(type, { ...checked.values, ...derived(type, checked.values, true) });
  const later = derived(type, checked.values, true, record.id);
  if (later['hs_all_contact_vids'] !== undefined)
    record.properties['hs_all_contact_vids'] = later['hs_all_contact_vids'];
  return record;
}

export function createRecord(
  portal: Portal,
  type: ObjectTypeDefinition,
  input: Record<string, unknown>,
): WriteResult {
  const c = checkCreate(portal, type, input);
  if (!c.ok) return c;
  const record = commitCreate(portal, type, c.checked);
  return { ok: true, record, names: Object.keys(record.properties) };
}

/** An update that passed every check, ready to commit. */
export interface CheckedUpdate {
  id: string;
  values: Record<string, string>;
}

export function checkUpdate(
  portal: Portal,
  type: ObjectTypeDefinition,
  id: string,
  input: Record<string, unknown>,
  idProperty?: string,
): { ok: true; checked: CheckedUpdate } | { ok: false; failure: WriteFailure } {
  const current = findRecord(portal, type, id, idProperty);
  if (current === undefined) return { ok: false, failure: { kind: 'notFound', id } };
  const checked = validateValues(portal, type, input, current.properties);
  if (!checked.ok) return { ok: false, failure: { kind: 'validation', errors: checked.errors } };
  const clash = uniqueClash(portal, type, checked.values, current.id);
  if (clash !== undefined) return { ok: false, failure: clash };
  return { ok: true, checked: { id: current.id, values: checked.values } };
}

/**
 * Writes a checked update. `names` are the properties an update answer shows: for contacts only the
 * sent and recomputed ones (captured), for other types those plus the identity trio (captured).
 */
export function commitUpdate(
  portal: Portal,
  type: ObjectTypeDefinition,
  checked: CheckedUpdate,
): WriteResult {
  const extra = derived(type, checked.values, false);
  const record = portal.records.update(type, checked.id, { ...checked.values, ...extra });
  if (record === undefined) return { ok: false, failure: { kind: 'notFound', id: checked.id } };
  const sent = [...Object.keys(checked.values), ...Object.keys(extra), type.lastModifiedProperty];
  const names = isContacts(type) ? sent : [...sent, ...identityProperties(type)];
  return { ok: true, record, names: [...new Set(names)] };
}

export function updateRecord(
  portal: Portal,
  type: ObjectTypeDefinition,
  id: string,
  input: Record<string, unknown>,
  idProperty?: string,
): WriteResult {
  const c = checkUpdate(portal, type, id, input, idProperty);
  if (!c.ok) return c;
  return commitUpdate(portal, type, c.checked);
}

/** Unique values two inputs of one batch both claim (the second one fails like a stored clash would). */
export function batchClash(
  portal: Portal,
  type: ObjectTypeDefinition,
  values: Record<string, string>,
  seen: Map<string, string>,
  selfKey: string,
): WriteFailure | undefined {
  for (const [name, value] of Object.entries(values)) {
    if (value === '' || name === 'hs_object_id' || !isUniqueProperty(portal, type, name)) continue;
    const key = `${name}\u0000${name === 'email' ? value.toLowerCase() : value}`;
    const owner = seen.get(key);
    if (owner !== undefined && owner !== selfKey) {
      const label = isContacts(type) ? 'Contact' : type.labels.singular;
      return {
        kind: 'conflict',
        message: `${label} already exists. Existing ID: ${owner}`,
        existingId: owner,
      };
    }
    seen.set(key, selfKey);
  }
  return undefined;
}
