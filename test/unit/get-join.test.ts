import assert from 'node:assert/strict';
import { test } from 'node:test';
import { joinJsonArrays } from '../../src/providers/salesforce/get.ts';

test('JSON array texts are joined into one array, empty ones skipped', () => {
  const joined = joinJsonArrays(['[{"Id":"a"},null]', '[ ]', '[\n{"Id":"b"}\n]', '[]']);
  assert.deepEqual(JSON.parse(joined), [{ Id: 'a' }, null, { Id: 'b' }]);
  assert.equal(joinJsonArrays([]), '[]');
});
