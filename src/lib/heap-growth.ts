import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the heap grow between two full collections, as a percentage over the live heap.
 * V8 picks up to 4x itself once the heap limit is 2 GiB or more (node's default on a machine with
 * 8 GiB): 50 concurrent 10 000-record inserts then peak at ~300 MiB RSS, most of it garbage
 * waiting for a collection. 3x peaks at ~260 MiB at the same speed. Lower factors (a heap limit
 * under 2 GiB gives at most 2x) made 1 MB pass-through uploads ~10% slower: their body bytes count
 * towards the same limit, so full collections of the service's heap come more often.
 */
export const HEAP_GROWING_PERCENT = 200;

const TWO_GIB = 2 * 1024 ** 3;

/** True when the operator chose the heap's sizing with a node flag of their own. */
export function operatorSizesHeap(execArgv: readonly string[], nodeOptions: string): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) =>
    /^--(heap[-_]growing[-_]percent|max[-_]old[-_]space[-_]size)\b/.test(arg),
  );
}

/**
 * Caps the heap's growth at HEAP_GROWING_PERCENT for this process (V8 reads the flag at every
 * collection), unless the operator sized the heap or the limit is under 2 GiB (V8's own factor is
 * then lower). Returns whether it did.
 */
export function capHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env['NODE_OPTIONS'] ?? '',
): boolean {
  if (operatorSizesHeap(execArgv, nodeOptions)) return false;
  if (getHeapStatistics().heap_size_limit < TWO_GIB) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
