import type { RecordError } from '../../domain/operations.ts';
import { closestName } from '../../lib/closest.ts';
import type { PropertyInfo } from './connection-state.ts';

const DAY_MS = 86_400_000;

/** A value HubSpot will take, or the per-record error that says why not and what would do. */
type Formatted = { ok: true; value: string } | { ok: false; error: RecordError };

function refuse(property: string, code: string, message: string): Formatted {
  return { ok: false, error: { statusCode: code, message, fields: [property] } };
}

/** An instant from epoch milliseconds (number or digits) or ISO 8601 text; undefined when neither. */
function instant(raw: string | number): Date | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? new Date(raw) : undefined;
  if (/^-?\d{1,15}$/.test(raw)) return new Date(Number(raw));
  if (!/^\d{4}-\d{2}-\d{2}(?:$|T)/.test(raw)) return undefined;
  // A bare date means midnight UTC (Date parses it so); a date-time without zone is read as UTC too.
  const text = /T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/.test(raw) ? `${raw}Z` : raw;
  const d = new Date(text);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** The closest option per property and wrong value, remembered: one edit-distance search per value. */
export class OptionHints {
  readonly #memo = new Map<string, string | null>();

  closest(property: PropertyInfo, value: string): string | null {
    const key = `${property.name}\u0000${value}`;
    let hint = this.#memo.get(key);
    if (hint === undefined) {
      const labels = property.options.map((o) => o.label);
      const values = property.options.map((o) => o.value);
      const byLabel = closestName(value, labels);
      hint = closestName(value, values) ?? property.options.find((o) => o.label === byLabel)?.value ?? null;
      this.#memo.set(key, hint);
    }
    return hint;
  }
}

/** One enumeration value: the option's value, matched exactly, else by value or label ignoring case. */
function option(property: PropertyInfo, part: string): string | undefined {
  const exact = property.options.find((o) => o.value === part);
  if (exact !== undefined) return exact.value;
  const lower = part.toLowerCase();
  return (
    property.options.find((o) => o.value.toLowerCase() === lower) ??
    property.options.find((o) => o.label.toLowerCase() === lower)
  )?.value;
}

/** A client's value as HubSpot stores it for the type (`null` or `""` clears); dates at midnight UTC only. */
export function formatValue(property: PropertyInfo, raw: unknown, hints: OptionHints): Formatted {
  const name = property.name;
  if (raw === null || raw === '') return { ok: true, value: '' };
  const multi = property.type === 'enumeration' && property.fieldType === 'checkbox';
  if (Array.isArray(raw) && multi && raw.every((v) => typeof v === 'string')) {
    return formatEnumeration(property, raw as string[], hints);
  }
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
    return refuse(
      name,
      'INVALID_PROPERTY_VALUE',
      `${name} takes a string, number or boolean${multi ? ' (or an array of option values)' : ''}; got ${Array.isArray(raw) ? 'an array' : typeof raw}.`,
    );
  }
  const text = String(raw);
  switch (property.type) {
    case 'number': {
      const n = typeof raw === 'number' ? raw : Number(text.trim());
      if (typeof raw === 'boolean' || text.trim() === '' || !Number.isFinite(n)) {
        return refuse(
          name,
          'INVALID_NUMBER',
          `${name} is a number property; "${text.slice(0, 100)}" is not a number.`,
        );
      }
      return { ok: true, value: typeof raw === 'number' ? String(raw) : text.trim() };
    }
    case 'bool': {
      const v = text.trim().toLowerCase();
      if (v !== 'true' && v !== 'false') {
        return refuse(
          name,
          'INVALID_BOOLEAN',
          `${name} is a boolean property; send true or false, not "${text.slice(0, 100)}".`,
        );
      }
      return { ok: true, value: v };
    }
    case 'date':
    case 'datetime': {
      const d = typeof raw === 'boolean' ? undefined : instant(typeof raw === 'number' ? raw : text.trim());
      const shown = text.slice(0, 100);
      if (d === undefined) {
        const expected =
          property.type === 'date'
            ? 'YYYY-MM-DD (or epoch milliseconds at midnight UTC)'
            : 'ISO 8601 (2025-01-31T09:30:00Z) or epoch milliseconds';
        return refuse(
          name,
          'INVALID_DATE',
          `${name} is a ${property.type} property; send ${expected}, not "${shown}".`,
        );
      }
      if (property.type === 'datetime') return { ok: true, value: d.toISOString() };
      const day = d.toISOString().slice(0, 10);
      if (d.getTime() % DAY_MS !== 0) {
        return refuse(
          name,
          'INVALID_DATE',
          `${name} is a date property and "${shown}" is not at midnight UTC; send the date alone (${day}).`,
        );
      }
      return { ok: true, value: day };
    }
    case 'enumeration':
      return formatEnumeration(property, multi ? text.split(';').filter((p) => p !== '') : [text], hints);
    default:
      return { ok: true, value: text };
  }
}

function formatEnumeration(property: PropertyInfo, parts: string[], hints: OptionHints): Formatted {
  if (property.externalOptions || property.options.length === 0) return { ok: true, value: parts.join(';') };
  const values: string[] = [];
  for (const part of parts) {
    const value = option(property, part);
    if (value === undefined) {
      const hint = hints.closest(property, part);
      const listed = property.options
        .slice(0, 20)
        .map((o) => o.value)
        .join(', ');
      return refuse(
        property.name,
        'INVALID_OPTION',
        `"${part.slice(0, 100)}" is not an option of ${property.name}.${hint === null ? '' : ` Did you mean "${hint}"?`} Options: ${listed}${property.options.length > 20 ? ', …' : ''}.`,
      );
    }
    values.push(value);
  }
  return { ok: true, value: values.join(';') };
}
