/** The indexes of the items `keep` accepts, in order; a plain loop, with no array made per item. */
export function positionsWhere<T>(items: readonly T[], keep: (item: T, index: number) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < items.length; i++) if (keep(items[i] as T, i)) out.push(i);
  return out;
}
