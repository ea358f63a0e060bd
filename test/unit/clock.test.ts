import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isoTime } from '../../src/lib/clock.ts';

test('isoTime writes what Date#toISOString writes, within a second and across seconds', () => {
  // Runs of nearby instants exercise the kept second as well as its change.
  const run = fc.tuple(
    fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }),
    fc.array(fc.integer({ min: -1500, max: 1500 }), { maxLength: 20 }),
  );
  fc.assert(
    fc.property(run, ([start, steps]) => {
      let ms = start;
      for (const step of [0, ...steps]) {
        ms += step;
        assert.equal(isoTime(ms), new Date(ms).toISOString());
      }
    }),
    { numRuns: 500 },
  );
  for (const ms of [0, 999, 1000, -1, -1000, -1001, 1_764_000_000_000, 1_764_000_000_999]) {
    assert.equal(isoTime(ms), new Date(ms).toISOString());
  }
});

test('isoTime: years outside 0000-9999 keep their long form', () => {
  for (const ms of [-62_167_219_200_001, 253_402_300_800_000, 8.64e15, -8.64e15]) {
    assert.equal(isoTime(ms), new Date(ms).toISOString());
  }
});
