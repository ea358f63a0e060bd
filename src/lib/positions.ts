/**
 * The indexes of the items `keep` accepts, in order. A plain loop: `flatMap` with an array per
 * item cost about 4 % of the service's CPU on 200-record writes.
 */
export function positionsWhere<T>(items: readonly T[], keep: (item: T, index: number) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < items.length; i++) if (keep(items[i] as T, i)) out.push(i);
  return out;
}
