import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from '@jetstreamapp/soql-parser-js';
import { soqlLiteral, soqlString } from '../../src/providers/salesforce/query.ts';

test('soqlString escapes backslash first, then quotes and control characters', () => {
  assert.equal(soqlString('plain'), "'plain'");
  assert.equal(soqlString("O'Brien"), "'O\\'Brien'");
  assert.equal(soqlString('back\\slash'), "'back\\\\slash'");
  assert.equal(soqlString("\\'"), "'\\\\\\''");
  assert.equal(soqlString('say "hi"'), '\'say \\"hi\\"\'');
  assert.equal(soqlString('a\nb\rc\td\fe\bf'), "'a\\nb\\rc\\td\\fe\\bf'");
  assert.equal(soqlString('100%_x'), "'100%_x'");
});

test('soqlLiteral: numbers, booleans and dates unquoted only when well-formed', () => {
  assert.equal(soqlLiteral(12.5, 'currency'), '12.5');
  assert.equal(soqlLiteral('42', 'int'), '42');
  assert.equal(soqlLiteral('1 OR Id != null', 'double'), null);
  assert.equal(soqlLiteral(true, 'boolean'), 'true');
  assert.equal(soqlLiteral('true OR x', 'boolean'), null);
  assert.equal(soqlLiteral('2024-01-31', 'date'), '2024-01-31');
  assert.equal(soqlLiteral('2024-01-31) OR (x', 'date'), null);
  assert.equal(soqlLiteral('2024-01-31T10:00:00Z', 'datetime'), '2024-01-31T10:00:00Z');
  assert.equal(soqlLiteral("x'y", 'string'), "'x\\'y'");
  assert.equal(soqlLiteral({}, 'string'), null);
});

test('escaped values cannot change a query: SOQL’s parser sees one condition holding the value', () => {
  const nasty = ["x' OR Name != '", "a\\' OR Name != '\\", 'line\nbreak', 'it\'s "quoted"', '\\', "'", '%_'];
  for (const value of nasty) {
    const where = parseQuery(`SELECT Id FROM Account WHERE Name = ${soqlString(value)}`).where as
      | { left?: unknown; right?: unknown; operator?: unknown }
      | undefined;
    assert.equal(where?.right, undefined, value);
    assert.equal(where?.operator, undefined, value);
    const left = where?.left as { field?: string; operator?: string; value?: string } | undefined;
    assert.equal(left?.field, 'Name');
    assert.equal(left?.operator, '=');
    assert.equal(unescapeSoql(String(left?.value)), value);
  }
});

/** The documented escape sequences, undone (the reverse of soqlString). */
function unescapeSoql(literal: string): string {
  const map: Record<string, string> = { n: '\n', r: '\r', t: '\t', f: '\f', b: '\b' };
  return literal.slice(1, -1).replace(/\\(.)/g, (_m, c: string) => map[c] ?? c);
}
