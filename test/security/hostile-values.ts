import fc from 'fast-check';
import { type FuzzValue, JsonEntries, RawJson, raw } from './json-bytes.ts';

/** How large the worst generated values get: small in the test suite, larger in a long run. */
export interface Scale {
  maxStringChars: number;
  maxDepth: number;
  maxKeys: number;
  maxArray: number;
}

export const CI_SCALE: Scale = { maxStringChars: 200_000, maxDepth: 20_000, maxKeys: 5_000, maxArray: 2_000 };
export const LONG_SCALE: Scale = {
  maxStringChars: 2_000_000,
  maxDepth: 200_000,
  maxKeys: 100_000,
  maxArray: 10_001,
};

export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];

/** Keys that break naive code: prototype names, Object.prototype members, empty, dotted, huge. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    ...PROTOTYPE_KEYS,
    'toString',
    'hasOwnProperty',
    'valueOf',
    '',
    ' ',
    'Id',
    'id',
    'ID',
    'Name',
    'NAME',
    'data',
    'ids',
    'fields',
    'cursor',
    'match_key',
    'Owner.Name',
    'Account.__proto__',
    '$ref',
    'a\u0000b',
    '\u202e',
    'x'.repeat(300),
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);

const deepArray = (n: number) => raw(`${'['.repeat(n)}${']'.repeat(n)}`, `[[… depth ${n}`);
const deepObject = (n: number) => raw(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`, `{"a":{… depth ${n}`);
const manyKeys = (n: number) =>
  raw(
    `{${Array.from({ length: n }, (_, i) => `"unknown_field_${i}":${i}`).join(',')}}`,
    `{${n} unknown keys}`,
  );

/** A string whose bytes are not UTF-8 (a lone continuation byte, an overlong form, a cut sequence…). */
const invalidUtf8 = fc
  .tuple(
    fc.string({ maxLength: 6 }),
    fc.constantFrom(
      [0xff],
      [0xfe, 0xff],
      [0x80],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
    ),
  )
  .map(
    ([prefix, bytes]) =>
      new RawJson(
        Buffer.concat([
          Buffer.from(JSON.stringify(prefix).slice(0, -1)),
          Buffer.from(bytes),
          Buffer.from('"'),
        ]),
        `invalid UTF-8 ${Buffer.from(bytes).toString('hex')}`,
      ),
  );

/** Values meant to break parsers, validators and formatters. */
export function hostileValue(scale: Scale): fc.Arbitrary<FuzzValue> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<FuzzValue> },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 2, arbitrary: invalidUtf8 },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        raw('"\\ud800"'),
        raw('"\\udfff\\ud800"'),
        raw('"\\u0000"'),
        raw('1e400'),
        raw('-1e400'),
        raw('-0'),
        raw('1e-400'),
        raw('123456789012345678901234567890'),
        raw('{"__proto__":{"polluted":true}}'),
        raw('{"constructor":{"prototype":{"polluted":true}}}'),
        raw('{"prototype":{"polluted":true}}'),
        '',
        ' ',
        '%00',
        "' OR 1=1 --",
        "O'Brien\\",
        'SELECT Id FROM Account',
        '2024-02-30T25:61:61Z',
        '<script>alert(1)</script>',
        '😀'.repeat(50),
        'e\u0301'.repeat(50),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.integer({ min: 1_000, max: scale.maxStringChars }),
          fc.constantFrom('a', 'é', '😀', '"', '\\'),
        )
        .map(([n, ch]) => ch.repeat(Math.ceil(n / ch.length))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 50, max: scale.maxDepth }), fc.boolean())
        .map(([n, arrays]) => (arrays ? deepArray(n) : deepObject(n))),
    },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: scale.maxKeys }).map(manyKeys) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 100, max: scale.maxArray })
        .map((n) => raw(`[${Array.from({ length: n }, () => '"x"').join(',')}]`, `[${n} strings]`)),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(hostileKey, fc.jsonValue({ maxDepth: 1 })).map(
        ([key, value]) =>
          new JsonEntries([
            [key, value as FuzzValue],
            [key, 'duplicate'],
          ]),
      ),
    },
  );
}
