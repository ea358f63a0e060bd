import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';

interface Answer {
  data?: Array<{ success: boolean }>;
  error?: { code: string; message: string };
}

/**
 * Bodies from 256 KiB on wait for their place among the large bodies (src/http/plugins/body-parser.ts). Each
 * broken large body must get exactly the answer the same breakage gets in a small body, and a
 * valid one must parse to the same records.
 */
const record = (i: number) => JSON.stringify({ Name: `Large ${i}`, Description: 'd'.repeat(300) });
const records = (count: number) => Array.from({ length: count }, (_, i) => record(i));
const LARGE = 1_500; // ~500 KB: past the 256 KiB threshold, below the Bulk API threshold
const SMALL = 3;

/** `{"data":[…]}` with `sep` between records and `tail` before the closing bracket. */
const body = (items: string[], sep = ',', tail = '') => `{"data":[${items.join(sep)}${tail}]}`;

/** Every separator between 200 000 and 400 000 characters doubled: whichever comma a piece is cut at, `,,` is next to it. */
function doubledCommasAroundCut(): string {
  const items = records(LARGE);
  let out = '{"data":[';
  items.forEach((item, i) => {
    if (i > 0) out += out.length > 200_000 && out.length < 400_000 ? ',,' : ',';
    out += item;
  });
  return `${out}]}`;
}

test('large JSON bodies get the answers small ones get', async (t) => {
  const s = await startStack(t);
  const send = (rawBody: string) =>
    s.api<Answer>('/v1/object/insert/Account', { rawBody, headers: { 'content-type': 'application/json' } });
  /** `index` maps the small body's record index in the answer to the large body's. */
  const same = async (name: string, small: string, large: string, index = (text: string) => text) => {
    assert.ok(large.length > 256 * 1024, `${name}: the large body is large`);
    const a = await send(small);
    const b = await send(large);
    assert.equal(a.status, 400, `${name}: ${a.text.slice(0, 200)}`);
    assert.equal(b.status, a.status, `${name}: ${b.text.slice(0, 200)}`);
    assert.deepEqual(b.body.error, JSON.parse(index(JSON.stringify(a.body.error))), name);
  };

  const valid = await send(body(records(LARGE)));
  assert.equal(valid.status, 200, valid.text.slice(0, 200));
  assert.equal(valid.body.data?.length, LARGE);
  assert.ok(valid.body.data?.every((r) => r.success));

  await same('trailing comma', body(records(SMALL), ',', ','), body(records(LARGE), ',', ','));
  await same(
    'trailing comma and blanks',
    body(records(SMALL), ',', ' ,\n '),
    body(records(LARGE), ',', ' ,\n '),
  );
  await same('two commas', body(records(SMALL), ',,'), doubledCommasAroundCut());
  await same('truncated', body(records(SMALL)).slice(0, -3), body(records(LARGE)).slice(0, -3));
  const poisoned = (items: string[]) => {
    items[items.length - 2] = '{"Name":"x","__proto__":{"isAdmin":true}}';
    return body(items);
  };
  await same('__proto__ key', poisoned(records(SMALL)), poisoned(records(LARGE)));
  const constructed = (items: string[]) => {
    items[items.length - 2] = '{"Name":"x","constructor":{"prototype":{"isAdmin":true}}}';
    return body(items);
  };
  await same('constructor.prototype', constructed(records(SMALL)), constructed(records(LARGE)));
  const deep = (items: string[]) => {
    items[items.length - 2] = `{"Name":${'['.repeat(40)}${']'.repeat(40)}}`;
    return body(items);
  };
  await same('nested too deep', deep(records(SMALL)), deep(records(LARGE)), (text) =>
    text.replaceAll(`/data/${SMALL - 2}/`, `/data/${LARGE - 2}/`),
  );

  // Duplicate keys: the last one wins, as JSON.parse has it, whichever of them is large.
  const lastWins = await send(`${body(records(LARGE)).slice(0, -1)},"data":[${record(0)}]}`);
  assert.equal(lastWins.status, 200, lastWins.text.slice(0, 200));
  assert.equal(lastWins.body.data?.length, 1);
  const largeLast = await send(`{"data":[${record(0)}],${body(records(LARGE)).slice(1)}`);
  assert.equal(largeLast.status, 200, largeLast.text.slice(0, 200));
  assert.equal(largeLast.body.data?.length, LARGE);
});
