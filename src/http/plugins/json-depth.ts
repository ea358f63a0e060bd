import { MAX_DISTINCT_FIELDS } from '../../operations/field-bounds.ts';

/**
 * The deepest nesting any request body of the API needs is about 6 levels (a custom field's
 * `data.valueSet.valueSetDefinition.value[i].fullName`). Deeper JSON parses fine, but anything
 * that later walks it recursively (JSON.stringify, Array.prototype.join, loggers) overflows the
 * stack at a few thousand levels, so bodies deeper than this are refused before anything walks them.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const COLON = 0x3a;

/**
 * Keys in one JSON object. A record names at most MAX_DISTINCT_FIELDS fields and no other body
 * comes near it; past this JSON.parse itself turns slow (an object of ~900,000 keys in 8 MiB
 * took ~0.7 s of blocked event loop), so such a body is refused before it is parsed.
 */
export const MAX_OBJECT_KEYS = MAX_DISTINCT_FIELDS;

/**
 * What JSON text would cost to parse and walk, read from the text itself in one pass without
 * allocation: `deep` when it nests deeper than `maxDepth`, `wide` when one object has more than
 * `maxKeys` keys (each key is followed by a colon outside strings), else null. Invalid JSON is
 * left to the parser.
 */
export function scanJson(
  text: string,
  maxDepth = MAX_JSON_DEPTH,
  maxKeys = MAX_OBJECT_KEYS,
): 'deep' | 'wide' | null {
  const keys = new Int32Array(maxDepth + 1);
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === COLON && depth > 0) {
      const count = (keys[depth] ?? 0) + 1;
      if (count > maxKeys) return 'wide';
      keys[depth] = count;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return 'deep';
      keys[depth] = 0;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return null;
}

interface Frame {
  value: object;
  depth: number;
  key: string;
  parent: Frame | null;
}

/** JSON pointer of the first container nested deeper than `max`, or null. Iterative: no recursion. */
export function tooDeep(root: unknown, max = MAX_JSON_DEPTH): string | null {
  if (typeof root !== 'object' || root === null) return null;
  const stack: Frame[] = [{ value: root, depth: 1, key: '', parent: null }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.depth > max) return pointer(frame);
    const entries: Iterable<[string, unknown]> = Array.isArray(frame.value)
      ? frame.value.map((v, i): [string, unknown] => [String(i), v])
      : Object.entries(frame.value);
    for (const [key, value] of entries) {
      if (typeof value === 'object' && value !== null) {
        stack.push({ value, depth: frame.depth + 1, key, parent: frame });
      }
    }
  }
  return null;
}

function pointer(frame: Frame): string {
  const keys: string[] = [];
  for (let f: Frame | null = frame; f !== null && f.parent !== null; f = f.parent) {
    keys.push(f.key.replaceAll('~', '~0').replaceAll('/', '~1'));
  }
  return `/${keys.reverse().join('/')}`;
}
