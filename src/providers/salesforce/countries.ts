import type { Country, CountryList } from '../../domain/operations.ts';
import type { ObjectDescribe } from './describe.ts';
import { ISO_COUNTRY_CODES, ISO_STATES } from './standard-countries.ts';

/** The fields State and Country/Territory Picklists add to Account (Shipping* carry the same lists). */
const COUNTRY_FIELD = 'BillingCountryCode';
const STATE_FIELD = 'BillingStateCode';

interface PicklistEntry {
  value: string;
  label: string;
  active: boolean;
  validFor: string | null;
}

function picklistOf(describe: ObjectDescribe, name: string): PicklistEntry[] | undefined {
  const field = describe.fields.find((f) => f.name === name);
  if (field === undefined) return undefined;
  const values = field['picklistValues'];
  if (!Array.isArray(values)) return [];
  return values.filter(
    (v): v is PicklistEntry =>
      typeof v === 'object' && v !== null && typeof v.value === 'string' && typeof v.label === 'string',
  );
}

/** Controlling entries a dependent entry is valid for: `validFor` is a base64 bitmap, MSB first. */
export function validForIndexes(validFor: string | null, controllingCount: number): number[] {
  if (validFor === null || validFor === '') return [];
  const bytes = Buffer.from(validFor, 'base64');
  const indexes: number[] = [];
  // A state is usually valid for one country: skip the empty bytes of a bitmap of hundreds of bits.
  for (let byte = 0; byte < bytes.length && byte * 8 < controllingCount; byte++) {
    const bits = bytes[byte] ?? 0;
    if (bits === 0) continue;
    for (let bit = 0; bit < 8; bit++) {
      const i = byte * 8 + bit;
      if (i < controllingCount && (bits & (0x80 >> bit)) !== 0) indexes.push(i);
    }
  }
  return indexes;
}

/** The org's own picklists; the describe has no `visible` (a Metadata API call would), so it repeats `active`. */
function fromPicklists(countries: PicklistEntry[], states: PicklistEntry[]): Country[] {
  const entry = (e: PicklistEntry) => ({
    code: e.value,
    label: e.label,
    active: e.active !== false,
    visible: e.active !== false,
  });
  const list: Country[] = countries.map((c) => ({ ...entry(c), states: [] }));
  for (const s of states)
    for (const i of validForIndexes(s.validFor, list.length)) list[i]?.states.push(entry(s));
  return list;
}

/** ISO 3166 with English names (CLDR through `Intl.DisplayNames`), every entry active and visible. */
function isoDefault(): Country[] {
  const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
  return ISO_COUNTRY_CODES.map((code) => ({
    code,
    label: names.of(code) ?? code,
    active: true,
    visible: true,
    states: (ISO_STATES[code] ?? []).map((s) => ({ ...s, active: true, visible: true })),
  }));
}

/** Lists already built from a describe the cache still holds (read-only once built). */
const built = new WeakMap<ObjectDescribe, CountryList>();

/** The country list from Account's describe: its picklists when the org has them on, else ISO 3166. */
export function countriesFromDescribe(account: ObjectDescribe | null): CountryList {
  if (account === null) return { source: 'iso_default', countries: isoDefault() };
  let list = built.get(account);
  if (list === undefined) {
    const countries = picklistOf(account, COUNTRY_FIELD);
    list =
      countries === undefined
        ? { source: 'iso_default', countries: isoDefault() }
        : {
            source: 'org_picklists',
            countries: fromPicklists(countries, picklistOf(account, STATE_FIELD) ?? []),
          };
    built.set(account, list);
  }
  return list;
}
