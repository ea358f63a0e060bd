import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeUtf8Yielding, encodeUtf8Yielding } from '../../src/lib/utf8-yielding.ts';

test('encoding in slices gives the bytes Buffer.from gives, surrogate pairs across slice ends included', async () => {
  const texts = [
    'short é',
    'é'.repeat(600_000),
    // A pair straddling the first slice end (128 Ki characters), then many more pairs and ASCII.
    `${'a'.repeat(128 * 1024 - 1)}${'😀'.repeat(200_000)}tail`,
    // A lone high surrogate at the very end is encoded as U+FFFD, as Buffer.from does.
    `${'b'.repeat(300_000)}\ud83d`,
  ];
  for (const text of texts) {
    const bytes = await encodeUtf8Yielding(text);
    assert.ok(bytes.equals(Buffer.from(text, 'utf8')), `${text.length} characters`);
    assert.equal(await decodeUtf8Yielding(bytes), Buffer.from(text, 'utf8').toString('utf8'));
  }
});
