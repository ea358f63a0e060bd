import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PropertyInfo } from '../../src/providers/hubspot/connection-state.ts';
import { formatValue, OptionHints } from '../../src/providers/hubspot/values.ts';

const prop = (type: string, fieldType = 'text', options: string[] = []): PropertyInfo => ({
  name: `p_${type}`,
  type,
  fieldType,
  options: options.map((v) => ({ value: v, label: v.replace(/_/g, ' ').toLowerCase() })),
  externalOptions: false,
  hasUniqueValue: false,
  readOnlyValue: false,
});

const value = (p: PropertyInfo, raw: unknown) => {
  const r = formatValue(p, raw, new OptionHints());
  return r.ok ? r.value : `!${r.error.statusCode}: ${r.error.message}`;
};

test('dates: midnight UTC only, from text, ISO instants or epoch milliseconds; sent as YYYY-MM-DD', () => {
  const date = prop('date', 'date');
  assert.equal(value(date, '2025-03-04'), '2025-03-04');
  assert.equal(value(date, '2025-03-04T00:00:00Z'), '2025-03-04');
  assert.equal(value(date, 1_741_046_400_000), '2025-03-04');
  assert.equal(value(date, '1741046400000'), '2025-03-04');
  assert.match(value(date, '2025-03-04T10:00:00Z'), /^!INVALID_DATE: .*not at midnight UTC.*2025-03-04/);
  assert.match(value(date, 'yesterday'), /^!INVALID_DATE/);
  assert.match(value(date, true), /^!INVALID_DATE/);
});

test('datetimes: ISO with zone, without zone (UTC), bare dates and epoch milliseconds, sent as ISO UTC', () => {
  const dt = prop('datetime', 'date');
  assert.equal(value(dt, '2025-03-04T10:00:00+02:00'), '2025-03-04T08:00:00.000Z');
  assert.equal(value(dt, '2025-03-04T10:00:00'), '2025-03-04T10:00:00.000Z');
  assert.equal(value(dt, '2025-03-04'), '2025-03-04T00:00:00.000Z');
  assert.equal(value(dt, 0), '1970-01-01T00:00:00.000Z');
  assert.match(value(dt, '03/04/2025'), /^!INVALID_DATE/);
});

test('numbers, booleans, strings, clearing and non-scalar values', () => {
  assert.equal(value(prop('number', 'number'), 12.5), '12.5');
  assert.equal(value(prop('number', 'number'), ' 7 '), '7');
  assert.match(value(prop('number', 'number'), 'seven'), /^!INVALID_NUMBER/);
  assert.match(value(prop('number', 'number'), true), /^!INVALID_NUMBER/);
  assert.equal(value(prop('bool', 'booleancheckbox'), 'TRUE'), 'true');
  assert.equal(value(prop('bool', 'booleancheckbox'), false), 'false');
  assert.match(value(prop('bool', 'booleancheckbox'), 'yes'), /^!INVALID_BOOLEAN/);
  assert.equal(value(prop('string'), 42), '42');
  assert.equal(value(prop('number', 'number'), null), '');
  assert.equal(value(prop('date', 'date'), ''), '');
  assert.match(value(prop('string'), { a: 1 }), /^!INVALID_PROPERTY_VALUE/);
});

test('enumerations: exact value, value or label in any case, multiple checkboxes, the closest option suggested', () => {
  const stage = prop('enumeration', 'radio', ['lead', 'customer', 'OPEN_DEAL']);
  assert.equal(value(stage, 'lead'), 'lead');
  assert.equal(value(stage, 'Customer'), 'customer');
  assert.equal(value(stage, 'open deal'), 'OPEN_DEAL');
  assert.match(value(stage, 'custmer'), /^!INVALID_OPTION: .*Did you mean "customer"\?/);
  const multi = prop('enumeration', 'checkbox', ['a', 'b', 'c']);
  assert.equal(value(multi, ['a', 'C']), 'a;c');
  assert.equal(value(multi, 'a;b'), 'a;b');
  assert.match(value(multi, ['a', 'zzzzzz']), /^!INVALID_OPTION/);
  assert.equal(value({ ...stage, externalOptions: true }, 'anything'), 'anything');
  // One search per wrong value, however many records carry it.
  const hints = new OptionHints();
  for (let i = 0; i < 3; i++) assert.equal(hints.closest(stage, 'custmer'), 'customer');
});
