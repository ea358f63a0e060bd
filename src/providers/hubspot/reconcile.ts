import type { SaveResult } from '../../domain/operations.ts';
import type { HandlerCall } from '../adapter.ts';
import type { PerConnectionState } from './connection-state.ts';
import { type ObjectRef, propertyInfos } from './objects.ts';
import { readRecords } from './records.ts';
import { fail, type Outcome, type Prepared, written } from './write-results.ts';

// After a create or upsert whose answer was lost: HubSpot is asked what it holds before answering.

/** How long before the send a record's creation still counts as the call's own (clock skew with HubSpot). */
const SKEW_MS = 5 * 60 * 1000;

/** Whether a record found after a lost answer was created by the call sent at `sentAt` (less the skew). */
export function createdSinceSend(record: { createdAt: number }, sentAt: number): boolean {
  return record.createdAt >= sentAt - SKEW_MS;
}

/** Case-folded: HubSpot stores emails in lower case, and a unique value matches regardless of case. */
const fold = (v: string) => v.trim().toLowerCase();

/**
 * The property the records of a lost create can be found by: a contact's `email`, else the first
 * property with unique values (HubSpot refuses a second record holding one) that a record carries.
 */
async function lookupProperty(
  hs: PerConnectionState,
  call: HandlerCall,
  object: ObjectRef,
  batch: Prepared[],
): Promise<string | undefined> {
  const carried = (name: string) => batch.some((p) => (p.properties[name] ?? '') !== '');
  if (object.typeId === '0-1' && carried('email')) return 'email';
  const infos = await propertyInfos(hs, call.session, object);
  return infos.find((p) => p.hasUniqueValue && carried(p.name))?.name;
}

/** The records holding these values of a unique property: value (folded) → id and creation time. */
export async function findByUnique(
  hs: PerConnectionState,
  call: HandlerCall,
  object: ObjectRef,
  property: string,
  values: string[],
): Promise<Map<string, { id: string; createdAt: number }>> {
  const found = new Map<string, { id: string; createdAt: number }>();
  const { results = [] } = await readRecords(hs, call, object, values, {
    idProperty: property,
    properties: [property],
  });
  for (const r of results) {
    const value = r.properties?.[property];
    if (typeof r.id !== 'string' || typeof value !== 'string') continue;
    found.set(fold(value), { id: r.id, createdAt: Date.parse(String(r.createdAt ?? '')) });
  }
  return found;
}

const notWritten = (property: string, existing?: string): SaveResult => ({
  success: false,
  errors: [
    fail(
      'CRM_PROXY_NOT_WRITTEN',
      existing === undefined
        ? `The create call got no answer, and HubSpot then held no record with this ${property}: it was not written. Send it again.`
        : `The create call got no answer, and the record with this ${property} (${existing}) existed before the call: HubSpot refuses a second one, so this record was not written.`,
      [property],
    ),
  ],
});

/**
 * The records of a create batch whose answer was lost, looked up by a unique property. A record
 * found and created since the send (less the skew) was written; a record not found, or found
 * created earlier (HubSpot refuses a second record with the value), was not. Records without a
 * value, or sharing one with another record of the batch, are left out (their outcome stays
 * unknown), as are all records when there is no such property or HubSpot cannot be asked.
 */
export async function reconcileCreates(
  hs: PerConnectionState,
  call: HandlerCall,
  object: ObjectRef,
  batch: Prepared[],
  sentAt: number,
): Promise<Outcome> {
  const out: Outcome = new Map();
  const property = await lookupProperty(hs, call, object, batch).catch(() => undefined);
  if (property === undefined) return out;
  const counts = new Map<string, number>();
  for (const p of batch) {
    const v = p.properties[property];
    if (v !== undefined && v !== '') counts.set(fold(v), (counts.get(fold(v)) ?? 0) + 1);
  }
  const values = batch.flatMap((p) => {
    const v = p.properties[property];
    return v !== undefined && counts.get(fold(v)) === 1 ? [v] : [];
  });
  if (values.length === 0) return out;
  let found: Map<string, { id: string; createdAt: number }>;
  try {
    found = await findByUnique(hs, call, object, property, values);
  } catch {
    return out;
  }
  for (const p of batch) {
    const v = p.properties[property];
    if (v === undefined || counts.get(fold(v)) !== 1) continue;
    const record = found.get(fold(v));
    if (record !== undefined && Number.isNaN(record.createdAt)) continue;
    if (record === undefined) out.set(p.index, notWritten(property));
    else if (createdSinceSend(record, sentAt)) out.set(p.index, written(record.id));
    else out.set(p.index, notWritten(property, record.id));
  }
  return out;
}
