import fc from 'fast-check';
import { hostileKey, hostileValue, type Scale } from './hostile-values.ts';
import { type FuzzValue, JsonEntries, RawJson } from './json-bytes.ts';

type Container = FuzzValue[] | { [key: string]: FuzzValue };

export type Mutation =
  | { kind: 'set'; at: number; key: string; value: FuzzValue }
  | { kind: 'delete'; at: number; pick: number }
  | { kind: 'duplicate'; at: number; pick: number; value: FuzzValue }
  | { kind: 'replace-root'; value: FuzzValue }
  | { kind: 'flood'; at: number; keys: number; long: boolean };

function isContainer(value: FuzzValue): value is Container {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof RawJson) &&
    !(value instanceof JsonEntries)
  );
}

/** Copies the plain parts (fast-check may show the same value again while shrinking: never mutate it). */
function clone(value: FuzzValue): FuzzValue {
  if (Array.isArray(value)) return value.map(clone);
  if (isContainer(value)) {
    const out: Record<string, FuzzValue> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, {
        value: clone(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return value;
}

function containers(value: FuzzValue, out: Container[] = []): Container[] {
  if (!isContainer(value)) return out;
  out.push(value);
  for (const child of Object.values(value)) containers(child, out);
  return out;
}

/** Applies the mutations to a copy: wrong types, missing and extra keys, duplicates, hostile values. */
export function applyMutations(value: FuzzValue, mutations: Mutation[]): FuzzValue {
  let root = clone(value);
  for (const m of mutations) {
    if (m.kind === 'replace-root') {
      root = m.value;
      continue;
    }
    const nodes = containers(root);
    const node = nodes[m.at % Math.max(nodes.length, 1)];
    if (node === undefined) continue;
    const keys = Object.keys(node);
    if (m.kind === 'flood') {
      // Many unknown (or very long) field names at once: what closest-match suggestions chew on.
      if (Array.isArray(node)) continue;
      for (let i = 0; i < m.keys; i += 1)
        node[m.long ? `${'Unknown'.repeat(40)}${i}` : `Unknown_Field_${i}__c`] = i;
    } else if (m.kind === 'set') {
      if (Array.isArray(node)) node[m.at % (node.length + 1)] = m.value;
      // defineProperty: a `__proto__` key becomes an own key, as JSON.parse would make it.
      else
        Object.defineProperty(node, m.key, {
          value: m.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    } else if (m.kind === 'delete') {
      const key = keys[m.pick % Math.max(keys.length, 1)];
      if (key === undefined) continue;
      if (Array.isArray(node)) node.splice(Number(key), 1);
      else delete node[key];
    } else {
      const key = keys[m.pick % Math.max(keys.length, 1)];
      if (key === undefined || Array.isArray(node)) continue;
      // Replace the object in its parent by entries with the key twice (only the root is simple).
      const entries: Array<[string, FuzzValue]> = [...Object.entries(node), [key, m.value]];
      if (node === root) root = new JsonEntries(entries);
      else {
        for (const parent of nodes) {
          for (const [k, v] of Object.entries(parent)) {
            if (v !== node) continue;
            if (Array.isArray(parent)) parent[Number(k)] = new JsonEntries(entries);
            else parent[k] = new JsonEntries(entries);
          }
        }
      }
    }
  }
  return root;
}

export function mutationArb(scale: Scale): fc.Arbitrary<Mutation> {
  const at = fc.nat({ max: 1_000 });
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('set' as const),
        at,
        key: hostileKey,
        value: hostileValue(scale),
      }),
    },
    {
      // Hostile values under field names the CRMs know, so they reach the formatting code.
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('set' as const),
        at,
        key: fc.constantFrom(
          'Name',
          'Industry',
          'Description',
          'email',
          'firstname',
          'ids',
          'fields',
          'data',
        ),
        value: hostileValue(scale),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('delete' as const), at, pick: fc.nat({ max: 100 }) }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('flood' as const),
        at,
        keys: fc.integer({ min: 10, max: scale.maxKeys }),
        long: fc.boolean(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('duplicate' as const),
        at,
        pick: fc.nat({ max: 100 }),
        value: hostileValue(scale),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('replace-root' as const), value: hostileValue(scale) }),
    },
  );
}
