import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeUtf8Yielding, encodeUtf8Yielding } from '../../src/lib/utf8-yielding.ts';

test('decoding in slices gives the text Buffer#toString gives, characters cut between chunks included', async () => {
  const texts = [
    'short é',
    'é'.repeat(600_000),
    // Pairs straddling the slice ends (128 KiB), then many more pairs and ASCII.
    `${'a'.repeat(128 * 1024 - 1)}${'😀'.repeat(200_000)}tail`,
    // A lone high surrogate at the very end is encoded as U+FFFD, and decoded as such.
    `${'b'.repeat(300_000)}\ud83d`,
  ];
  for (const text of texts) {
    const bytes = Buffer.from(text, 'utf8');
    const expected = bytes.toString('utf8');
    assert.equal(await decodeUtf8Yielding(bytes), expected, `${text.length} characters`);
    // The same bytes in chunks cut at odd places, inside multi-byte characters.
    const cut = Math.floor(bytes.length / 3) + 1;
    const chunks = [bytes.subarray(0, cut), bytes.subarray(cut, 2 * cut + 1), bytes.subarray(2 * cut + 1)];
    assert.equal(await decodeUtf8Yielding(chunks), expected, `${text.length} characters in chunks`);
    // Invalid bytes become U+FFFD as Buffer#toString makes them.
    const broken = Buffer.concat([bytes, Buffer.from([0xc3])]);
    assert.equal(await decodeUtf8Yielding(broken), broken.toString('utf8'));
  }
});

test('encoding in slices gives the bytes Buffer.from gives, surrogate pairs at the slice ends included', async () => {
  const texts = [
    'short é',
    'é'.repeat(600_000),
    // Pairs straddling the slice ends (256 Ki characters): the first pair starts one before the end.
    `${'a'.repeat(256 * 1024 - 1)}${'😀'.repeat(300_000)}tail`,
    // Lone surrogates (U+FFFD each), one of them a high surrogate right at a slice end.
    `${'b'.repeat(256 * 1024 - 1)}\ud83d${'c'.repeat(300_000)}\ude00\ud83d`,
  ];
  for (const text of texts) {
    assert.deepEqual(await encodeUtf8Yielding(text), Buffer.from(text, 'utf8'), `${text.length} characters`);
  }
});
