import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { pointerAt, scanJson } from '../../src/http/plugins/json-depth.ts';
import { parseLargeJson } from '../../src/http/plugins/json-pieces.ts';

const refused = new Error('refused');
/** Pieces this small cut many or all commas of the `data` array, so every cut gets exercised. */
const pieceChars = fc.constantFrom(1, 8, 40);

async function pieces(
  text: string,
  size: number,
): Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await parseLargeJson(text, JSON.parse, () => refused, size) };
  } catch (error) {
    return { ok: false, error };
  }
}

function whole(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const value = fc.jsonValue({ maxDepth: 3 });
const body = fc
  .record({
    data: fc.array(value, { maxLength: 12 }),
    extra: fc.dictionary(fc.constantFrom('data', 'x', 'd\\u0061ta', '__proto__', 'y'), value, { maxKeys: 3 }),
    before: fc.boolean(),
  })
  .map(({ data, extra, before }) => {
    const rest = Object.entries(extra).map(([k, v]) => `"${k}":${JSON.stringify(v)}`);
    const main = `"data":${JSON.stringify(data, null, before ? 1 : 0)}`;
    return `{${(before ? [...rest, main] : [main, ...rest]).join(',')}}`;
  });
/** A change of one or a few characters, mostly the ones that carry JSON's structure. */
const edit = fc.record({
  at: fc.nat(),
  remove: fc.nat({ max: 3 }),
  insert: fc.string({
    unit: fc.constantFrom(',', '[', ']', '{', '}', '"', '\\', ':', ' ', '1', 'a'),
    maxLength: 3,
  }),
});
/** The `data` array with one separator doubled, blank, or trailing: what a cut could hide. */
const badCommas = fc
  .tuple(fc.array(value, { minLength: 1, maxLength: 8 }), fc.nat(), fc.constantFrom(',,', ', ,', ',\n', ''))
  .map(([data, at, sep]) => {
    const items = data.map((v) => JSON.stringify(v));
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

test('a body parsed in pieces is what JSON.parse makes of it whole, valid or not', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(body, edited, badCommas), pieceChars, async (text, size) => {
      const expected = whole(text);
      const got = await pieces(text, size);
      if (!got.ok && got.error === refused) {
        assert.notEqual(scanJson(text).kind, 'ok', 'refused only when the scan says so');
        return;
      }
      assert.equal(got.ok, expected.ok, `valid? ${text}`);
      if (got.ok && expected.ok) assert.deepEqual(got.value, expected.value, text);
    }),
    { numRuns: 3_000, seed: 20_261_126 },
  );
});

test('the pointer to the first container nested too deep is read from the text', () => {
  const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  const text = `{"a":1,"data":[{},{"x/y":{"b~":[0,1,${deep(40)}]}}]}`;
  const shape = scanJson(text, 5);
  assert.equal(shape.kind, 'deep');
  if (shape.kind !== 'deep') return;
  assert.equal(pointerAt(text, shape.at, 5), '/data/1/x~1y/b~0/2');
  const escaped = `{"d\\u0061ta":[${deep(40)}]}`;
  const second = scanJson(escaped, 3);
  assert.equal(second.kind, 'deep');
  if (second.kind === 'deep') assert.equal(pointerAt(escaped, second.at, 3), '/data/0/0');
});
