/**
 * The deepest nesting any request body of the API needs is about 6 levels (a custom field's
 * `data.valueSet.valueSetDefinition.value[i].fullName`). Deeper JSON parses fine, but anything
 * that later walks it recursively (JSON.stringify, Array.prototype.join, loggers) overflows the
 * stack at a few thousand levels, so bodies deeper than this are refused right after parsing.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether JSON text nests deeper than `max`, read from the text itself: one pass, no allocation,
 * stopping at the first level too deep. Cheaper than walking the parsed value (a walk of one object
 * with 100,000 keys costs more than parsing it), so only a body that fails here is walked, to name
 * the path. Invalid JSON is left to the parser.
 */
export function nestsDeeper(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
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
