import { normalizeId } from './ids.ts';
import type { FieldDescribe, FieldValue, RecordError } from './types.ts';

/** `2024-01-01T00:00:00.000+0000`: how Salesforce writes datetimes in JSON. */
export function formatDateTime(d: Date): string {
  return d.toISOString().replace('Z', '+0000');
}

export const err = (statusCode: string, message: string, fields: string[] = []): RecordError => ({
  statusCode,
  message,
  fields,
});

export type Coerced = { ok: true; value: FieldValue } | { ok: false; error: RecordError };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

const wrongType = (f: FieldDescribe, raw: unknown): Coerced => ({
  ok: false,
  error: err(
    'INVALID_TYPE_ON_FIELD_IN_RECORD',
    `${f.label}: value not of required type: ${typeof raw === 'object' ? JSON.stringify(raw) : String(raw)}`,
    [f.name],
  ),
});

function asNumber(f: FieldDescribe, raw: unknown): Coerced {
  let n: number;
  if (typeof raw === 'number') n = raw;
  else if (typeof raw === 'string' && NUMBER.test(raw.trim())) n = Number(raw.trim());
  else return wrongType(f, raw);
  if (!Number.isFinite(n)) return wrongType(f, raw);
  if (f.type === 'int' || f.type === 'long') {
    if (!Number.isInteger(n)) return wrongType(f, raw);
    return { ok: true, value: n };
  }
  const scale = f.scale;
  const rounded = scale > 0 ? Math.round(n * 10 ** scale) / 10 ** scale : Math.round(n);
  const maxIntDigits = f.precision - scale;
  if (f.precision > 0 && Math.abs(Math.trunc(rounded)).toString().length > maxIntDigits) {
    return {
      ok: false,
      error: err(
        'NUMBER_OUTSIDE_VALID_RANGE',
        `${f.label}: value outside of valid range on numeric field: ${n}`,
        [f.name],
      ),
    };
  }
  return { ok: true, value: rounded };
}

function asDate(f: FieldDescribe, raw: unknown): Coerced {
  if (typeof raw !== 'string') return wrongType(f, raw);
  const s = raw.trim();
  const m = DATE.exec(s) ?? (DATETIME.test(s) ? DATE.exec(s.slice(0, 10)) : null);
  if (m === null) return wrongType(f, raw);
  const d = new Date(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== `${m[1]}-${m[2]}-${m[3]}`)
    return wrongType(f, raw);
  return { ok: true, value: `${m[1]}-${m[2]}-${m[3]}` };
}

function asDateTime(f: FieldDescribe, raw: unknown): Coerced {
  if (typeof raw !== 'string') return wrongType(f, raw);
  const s = raw.trim();
  if (!DATETIME.test(s) && !DATE.test(s)) return wrongType(f, raw);
  // `+0000` (no colon) is Salesforce's own output; JavaScript's parser wants `+00:00`.
  const iso = DATE.test(s) ? `${s}T00:00:00Z` : s.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const d = new Date(/[zZ]|[+-]\d{2}:\d{2}$/.test(iso) ? iso : `${iso}Z`);
  if (Number.isNaN(d.getTime())) return wrongType(f, raw);
  return { ok: true, value: formatDateTime(d) };
}

function asText(f: FieldDescribe, raw: unknown): Coerced {
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean')
    return wrongType(f, raw);
  const s = String(raw);
  if (f.length > 0 && s.length > f.length) {
    return {
      ok: false,
      error: err('STRING_TOO_LONG', `${f.label}: data value too large: ${s} (max length=${f.length})`, [
        f.name,
      ]),
    };
  }
  if (f.type === 'email' && s !== '' && !EMAIL.test(s)) {
    return {
      ok: false,
      error: err('INVALID_EMAIL_ADDRESS', `${f.label}: invalid email address: ${s}`, [f.name]),
    };
  }
  // An empty value clears the field (stored as null), which a restricted picklist allows.
  if ((f.type === 'picklist' || f.type === 'multipicklist') && f.restrictedPicklist && s !== '') {
    const values = f.type === 'multipicklist' ? s.split(';') : [s];
    for (const v of values) {
      if (!f.picklistValues.some((p) => p.active && p.value === v)) {
        return {
          ok: false,
          error: err(
            'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
            `${f.label}: bad value for restricted picklist field: ${v}`,
            [f.name],
          ),
        };
      }
    }
  }
  return { ok: true, value: s === '' ? null : s };
}

/**
 * A value given for a field, checked and converted to its stored form. `csv` values are strings
 * whatever the type (Bulk API). Reference existence is checked by the caller, which knows the records.
 */
export function coerce(f: FieldDescribe, raw: unknown, csv: boolean): Coerced {
  if (raw === null || raw === undefined || (csv && raw === '#N/A')) {
    return { ok: true, value: f.type === 'boolean' ? false : null };
  }
  switch (f.type) {
    case 'id':
    case 'reference': {
      if (typeof raw !== 'string') return wrongType(f, raw);
      if (raw === '') return { ok: true, value: null };
      const id = normalizeId(raw);
      if (id === null) {
        return {
          ok: false,
          error: err('MALFORMED_ID', `${f.label}: id value of incorrect type: ${raw}`, [f.name]),
        };
      }
      return { ok: true, value: id };
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return { ok: true, value: raw };
      if (typeof raw === 'string') {
        const s = raw.trim().toLowerCase();
        if (s === 'true' || (csv && s === '1')) return { ok: true, value: true };
        if (s === 'false' || (csv && s === '0') || (csv && s === '')) return { ok: true, value: false };
      }
      return wrongType(f, raw);
    }
    case 'int':
    case 'long':
    case 'double':
    case 'currency':
    case 'percent':
      if (csv && raw === '') return { ok: true, value: null };
      return asNumber(f, raw);
    case 'date':
      if (csv && raw === '') return { ok: true, value: null };
      return asDate(f, raw);
    case 'datetime':
      if (csv && raw === '') return { ok: true, value: null };
      return asDateTime(f, raw);
    default:
      return asText(f, raw);
  }
}
