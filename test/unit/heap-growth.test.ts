import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { operatorSizesHeap } from '../../src/lib/heap-growth.ts';

test('a heap sized by the operator (node flag or NODE_OPTIONS) is left as it is', () => {
  assert.equal(operatorSizesHeap([], ''), false);
  assert.equal(operatorSizesHeap(['--import', 'tsx'], '--enable-source-maps'), false);
  assert.equal(operatorSizesHeap(['--max-old-space-size=1024'], ''), true);
  assert.equal(operatorSizesHeap([], '--max_old_space_size=512'), true);
  assert.equal(operatorSizesHeap([], '--enable-source-maps  --heap-growing-percent=50'), true);
});

// In a process of its own: the flag is process-wide.
const run = (args: string[]) =>
  spawnSync(
    process.execPath,
    [
      ...args,
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { capHeapGrowth } from './src/lib/heap-growth.ts';
       import { getHeapStatistics } from 'node:v8';
       console.log(JSON.stringify({ capped: capHeapGrowth(), limit: getHeapStatistics().heap_size_limit }));`,
    ],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );

test('serve caps the growth where V8 would allow 4x (a limit of 2 GiB or more), not under a smaller limit', () => {
  const own = JSON.parse(run([]).stdout) as { capped: boolean; limit: number };
  assert.equal(own.capped, own.limit >= 2 * 1024 ** 3);
  const small = JSON.parse(run(['--max-old-space-size=512']).stdout) as { capped: boolean };
  assert.equal(small.capped, false);
});
