import type { ObjectMeta } from './meta.ts';
import type { SRecord } from './types.ts';

const ADDRESS_PARTS = [
  'city',
  'country',
  'geocodeAccuracy',
  'latitude',
  'longitude',
  'postalCode',
  'state',
  'street',
];

/** A compound address (`BillingAddress`) from its parts (`BillingCity`, …); null when every part is empty. */
export function compoundAddress(
  meta: ObjectMeta,
  name: string,
  rec: SRecord,
): Record<string, unknown> | null {
  const prefix = name.replace(/Address$/, '');
  const out: Record<string, unknown> = {};
  let any = false;
  for (const part of ADDRESS_PARTS) {
    const field = `${prefix}${part[0]?.toUpperCase()}${part.slice(1)}`;
    const v = meta.field(field) === undefined ? null : (rec[field] ?? null);
    if (v !== null) any = true;
    out[part] = v;
  }
  return any ? out : null;
}
