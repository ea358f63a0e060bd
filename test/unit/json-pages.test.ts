import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import Fastify, { type FastifyRequest } from 'fastify';
import { ApiError } from '../../src/errors/index.ts';
import {
  BLANK,
  JsonPages,
  MAX_JSON_DEPTH,
  MAX_OBJECT_KEYS,
  PAGE_RECORDS,
} from '../../src/http/plugins/json-pages.ts';

type Outcome = { ok: true; value: unknown } | { ok: false; code: string } | { ok: 'blank' };

/** What the body parser answered before it streamed: Fastify's own parser on the decoded text. */
const fastifyParse = Fastify().getDefaultJsonParser('error', 'error');
function whole(bytes: Buffer): Outcome {
  const text = bytes.toString('utf8');
  if (text.trim() === '') return { ok: 'blank' };
  let outcome: Outcome = { ok: false, code: 'none' };
  fastifyParse({} as FastifyRequest, text, (error: Error | null, value?: unknown) => {
    outcome =
      error === null ? { ok: true, value } : { ok: false, code: (error as unknown as { code: string }).code };
  });
  return outcome;
}

/** The body fed in chunks of `size` bytes, as a socket may cut it (through characters too). */
function streamed(bytes: Buffer, size: number): Outcome {
  const reader = new JsonPages();
  for (let at = 0; at < bytes.length; at += size) reader.write(bytes.subarray(at, at + size));
  try {
    const body = reader.end();
    return body === BLANK ? { ok: 'blank' } : { ok: true, value: body.value };
  } catch (error) {
    return { ok: false, code: error instanceof ApiError ? error.code : (error as { code: string }).code };
  }
}

const chunkSize = fc.constantFrom(1, 2, 3, 7, 64, 1 << 20);
const value = fc.jsonValue({ maxDepth: 3 });
/** A value as JSON text: any JSON value, or one secure-json-parse refuses unless a duplicate key hides it. */
const valueText = fc.oneof(
  { weight: 6, arbitrary: value.map((v) => JSON.stringify(v)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"__proto__":{"isAdmin":true}}',
      '{"a":{"constructor":{"prototype":{}}}}',
      '{"constructor":{"x":1}}',
      '{"a":{"__proto__":1},"a":2}',
      '{"constructor":{"prototype":1},"constructor":null}',
      '["x",{"b":[{"\\u005f_proto__":0}]}]',
    ),
  },
);
const body = fc
  .record({
    data: fc.array(valueText, { maxLength: 12 }),
    extra: fc.dictionary(
      fc.constantFrom('data', 'x', 'd\\u0061ta', '__proto__', 'constructor', 'prototype', 'y'),
      valueText,
      { maxKeys: 3 },
    ),
    before: fc.boolean(),
    pad: fc.constantFrom('', ' ', '\n\t', '\ufeff', '\u00a0'),
  })
  .map(({ data, extra, before, pad }) => {
    const rest = Object.entries(extra).map(([k, v]) => `"${k}":${v}`);
    const main = `"data":[${data.join(before ? ',\n ' : ',')}]`;
    return `${pad}{${(before ? [...rest, main] : [main, ...rest]).join(',')}}`;
  });
/** A change of one or a few characters, mostly the ones that carry JSON's structure. */
const edit = fc.record({
  at: fc.nat(),
  remove: fc.nat({ max: 3 }),
  insert: fc.string({
    unit: fc.constantFrom(',', '[', ']', '{', '}', '"', '\\', ':', ' ', '1', 'a', 'é', '\u2028'),
    maxLength: 3,
  }),
});
/** The `data` array with one separator doubled, blank, or trailing. */
const badCommas = fc
  .tuple(
    fc.array(valueText, { minLength: 1, maxLength: 8 }),
    fc.nat(),
    fc.constantFrom(',,', ', ,', ',\n', ''),
  )
  .map(([items, at, sep]) => {
    const i = at % (items.length + 1);
    const joined = items.map((item, k) => (k === i ? `${sep}${item}` : k === 0 ? item : `,${item}`)).join('');
    return `{"data":[${joined}${i === items.length ? sep : ''}]}`;
  });
const edited = fc.tuple(body, fc.array(edit, { maxLength: 3 })).map(([text, edits]) =>
  edits.reduce((t, e) => {
    const at = e.at % (t.length + 1);
    return t.slice(0, at) + e.insert + t.slice(at + e.remove);
  }, text),
);
/** Bytes that are not UTF-8 somewhere in the body: replaced by U+FFFD, as Buffer#toString does. */
const mangled = fc
  .tuple(body, fc.nat(), fc.constantFrom([0xff], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]))
  .map(([text, at, bad]) => {
    const bytes = Buffer.from(text);
    const i = at % (bytes.length + 1);
    return Buffer.concat([bytes.subarray(0, i), Buffer.from(bad), bytes.subarray(i)]);
  });

test('a body read in chunks gets what Fastify’s parser makes of it whole, valid or not', () => {
  const texts = fc.oneof(
    body,
    edited,
    badCommas,
    fc.constantFrom('', ' ', '\u00a0 \ufeff', '5', '"x"', '[1] x'),
  );
  fc.assert(
    fc.property(
      fc.oneof(
        texts.map((t) => Buffer.from(t)),
        mangled,
      ),
      chunkSize,
      (bytes, size) => {
        const expected = whole(bytes);
        const got = streamed(bytes, size);
        assert.deepEqual(got, expected, bytes.toString());
      },
    ),
    { numRuns: 3_000, seed: 20_261_127 },
  );
});

test('the records of the data array come in pages, in order, and make up body.data', () => {
  const records = Array.from({ length: 2 * PAGE_RECORDS + 50 }, (_, i) => ({ Name: `n${i}`, n: i }));
  const reader = new JsonPages();
  reader.write(Buffer.from(JSON.stringify({ data: records, options: { a: 1 } })));
  const body = reader.end();
  assert.notEqual(body, BLANK);
  if (body === BLANK) return;
  assert.deepEqual(
    body.pages?.map((page) => page.length),
    [PAGE_RECORDS, PAGE_RECORDS, 50],
  );
  assert.deepEqual(body.value, { data: records, options: { a: 1 } });
  assert.deepEqual(body.pages?.flat(), (body.value as { data: unknown[] }).data);
  // The last of duplicate `data` keys wins, as in JSON.parse; one that is not an array has no pages.
  const read = (text: string) => {
    const reader = new JsonPages();
    reader.write(Buffer.from(text));
    const got = reader.end();
    return got === BLANK ? got : { data: (got.value as { data: unknown }).data, pages: got.pages };
  };
  assert.deepEqual(read('{"data":[1,2],"x":0,"data":[3]}'), { data: [3], pages: [[3]] });
  assert.deepEqual(read('{"data":[1,2],"data":{"a":[4]}}'), { data: { a: [4] }, pages: null });
  assert.deepEqual(read('{"data":5,"data":[1]}'), { data: [1], pages: [[1]] });
  assert.deepEqual(read('{"data":[]}'), { data: [], pages: [] });
});

function refusal(text: string): ApiError {
  const reader = new JsonPages();
  reader.write(Buffer.from(text));
  try {
    reader.end();
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return error;
  }
  assert.fail(`not refused: ${text.slice(0, 100)}`);
}

test('the pointer to the first container nested too deep is read from the parser’s place', () => {
  const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  // Five levels down to the `2` of [0,1,…]; the rest of the allowed depth is arrays at index 0.
  const text = `{"a":1,"data":[{},{"x/y":{"b~":[0,1,${deep(40)}]}}]}`;
  const error = refusal(text);
  const path = `/data/1/x~1y/b~0/2${'/0'.repeat(MAX_JSON_DEPTH - 5)}`;
  assert.equal(error.code, 'invalid_body');
  assert.deepEqual(error.details, [{ path, limit: MAX_JSON_DEPTH }]);
  assert.match(error.message, new RegExp(`nested more than ${MAX_JSON_DEPTH} levels deep \\(at ${path}\\)`));
  const escaped = refusal(`{"d\\u0061ta":[${deep(40)}]}`);
  assert.deepEqual(escaped.details, [
    { path: `/data${'/0'.repeat(MAX_JSON_DEPTH - 1)}`, limit: MAX_JSON_DEPTH },
  ]);
  // Exactly at the limit is fine.
  const reader = new JsonPages();
  reader.write(Buffer.from(`{"data":${deep(MAX_JSON_DEPTH - 1)}}`));
  assert.notEqual(reader.end(), BLANK);
});

test('an object with more keys than a record may name is refused, duplicate keys counted', () => {
  const object = (n: number, key = (i: number) => `f${i}`) =>
    `{${Array.from({ length: n }, (_, i) => `"${key(i)}":${i}`).join(',')}}`;
  const fits = new JsonPages();
  fits.write(Buffer.from(`{"data":[${object(MAX_OBJECT_KEYS)}]}`));
  assert.notEqual(fits.end(), BLANK);
  for (const text of [
    `{"data":[${object(MAX_OBJECT_KEYS + 1)}]}`,
    `{"data":[${object(MAX_OBJECT_KEYS + 1, () => 'same')}]}`,
    object(MAX_OBJECT_KEYS + 1),
  ]) {
    const error = refusal(text);
    assert.equal(error.code, 'too_many_fields');
    assert.deepEqual(error.details, [{ limit: MAX_OBJECT_KEYS }]);
  }
});
