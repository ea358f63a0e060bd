/**
 * SOQL string literal, escaped as Salesforce documents (SOQL reference, "Quoted String Escape
 * Sequences"): backslash first, then the quote characters and control characters. Anything the
 * caller sends stays inside the literal, so it cannot end the literal and add SOQL of its own.
 */
export function soqlString(value: string): string {
  const escaped = value
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/"/g, '\\"')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .replace(/\f/g, '\\f')
    .replaceAll('\b', '\\b');
  return `'${escaped}'`;
}

const NUMERIC = new Set(['int', 'double', 'currency', 'percent', 'long']);
const QUOTED_EXCEPTIONS = new Set(['date', 'datetime', 'time', 'boolean']);

/**
 * A value as a SOQL literal for a field of the given describe type, or null when the value
 * cannot be one (then the caller answers 400 instead of building a query). Numbers, booleans,
 * dates and datetimes are unquoted in SOQL, so they are checked against strict patterns.
 */
export function soqlLiteral(value: unknown, fieldType: string): string | null {
  const type = fieldType.toLowerCase();
  if (NUMERIC.has(type)) {
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
    return /^-?\d+(\.\d+)?$/.test(text) ? text : null;
  }
  if (type === 'boolean') {
    if (typeof value === 'boolean') return String(value);
    return value === 'true' || value === 'false' ? value : null;
  }
  if (type === 'date') {
    return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : null;
  }
  if (type === 'datetime') {
    return typeof value === 'string' &&
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/.test(value)
      ? value
      : null;
  }
  if (QUOTED_EXCEPTIONS.has(type)) return null;
  if (typeof value === 'string') return soqlString(value);
  if (typeof value === 'number') return soqlString(String(value));
  return null;
}
