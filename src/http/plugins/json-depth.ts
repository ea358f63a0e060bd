import { MAX_DISTINCT_FIELDS } from '../../operations/field-bounds.ts';

/**
 * The deepest nesting any request body of the API needs is about 6 levels (a custom field's
 * `data.valueSet.valueSetDefinition.value[i].fullName`). Deeper JSON parses fine, but anything
 * that later walks it recursively (JSON.stringify, Array.prototype.join, loggers) overflows the
 * stack at a few thousand levels, so bodies deeper than this are refused before they are parsed.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Keys in one JSON object. A record names at most MAX_DISTINCT_FIELDS fields and no other body
 * comes near it; past this JSON.parse itself turns slow (an object of ~900,000 keys in 8 MiB
 * took ~0.7 s of blocked event loop), so such a body is refused before it is parsed.
 */
export const MAX_OBJECT_KEYS = MAX_DISTINCT_FIELDS;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const COLON = 0x3a;
const COMMA = 0x2c;

/**
 * Where the elements of the body's top-level `"data"` array may be cut: `start` and `end` are the
 * offsets of its brackets, `cuts` the offsets of commas between its elements, at least `pieceChars`
 * apart. Each piece between two of these parses on its own as `[piece]`.
 */
export interface DataSplit {
  start: number;
  end: number;
  cuts: number[];
}

export type JsonShape =
  | { kind: 'deep'; at: number }
  | { kind: 'wide' }
  | { kind: 'ok'; split: DataSplit | null };

/**
 * Reads what JSON text would cost to parse and walk from the text itself, in one pass that can be
 * stopped and resumed (`scan(until)`), so a large body is read between yields to the event loop:
 * `deep` (with the offset of the first bracket past `maxDepth`) when it nests deeper than that,
 * `wide` when one object has more than `maxKeys` keys (each key is followed by a colon outside
 * strings), else `ok` with the places where the top-level `data` array can be cut, if the body has
 * exactly one `data` key. Invalid JSON is left to the parser.
 */
export class JsonScanner {
  readonly #keys: Int32Array;
  #pos = 0;
  #depth = 0;
  #inString = false;
  #stringStart = 0;
  #stringEnd = 0;
  #topIsObject = false;
  #dataKeys = 0;
  #keyIsData = false;
  #inData = false;
  #split: DataSplit | null = null;
  #lastCut = 0;

  constructor(
    private readonly text: string,
    private readonly pieceChars = 256 * 1024,
    private readonly maxDepth = MAX_JSON_DEPTH,
    private readonly maxKeys = MAX_OBJECT_KEYS,
  ) {
    this.#keys = new Int32Array(maxDepth + 1);
  }

  get done(): boolean {
    return this.#pos >= this.text.length;
  }

  /** Scans on up to offset `until`; a verdict once one is known or the text is read, else null. */
  scan(until: number): JsonShape | null {
    const text = this.text;
    const end = Math.min(until, text.length);
    let i = this.#pos;
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (this.#inString) {
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) {
          this.#inString = false;
          this.#stringEnd = i;
        }
      } else if (c === QUOTE) {
        this.#inString = true;
        this.#stringStart = i;
      } else if (c === COLON && this.#depth > 0) {
        const count = (this.#keys[this.#depth] ?? 0) + 1;
        if (count > this.maxKeys) return { kind: 'wide' };
        this.#keys[this.#depth] = count;
        if (this.#depth === 1 && this.#topIsObject) this.#topKey();
      } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        if (++this.#depth > this.maxDepth) return { kind: 'deep', at: i };
        this.#keys[this.#depth] = 0;
        if (this.#depth === 1) this.#topIsObject = c === OPEN_OBJECT;
        else if (this.#depth === 2 && this.#keyIsData && c === OPEN_ARRAY) {
          this.#inData = true;
          this.#split = { start: i, end: -1, cuts: [] };
          this.#lastCut = i;
        }
      } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
        if (this.#depth === 2 && this.#inData && this.#split !== null) {
          this.#split.end = i;
          this.#inData = false;
        }
        this.#depth--;
      } else if (c === COMMA && this.#depth === 2 && this.#inData && i - this.#lastCut >= this.pieceChars) {
        this.#split?.cuts.push(i);
        this.#lastCut = i;
      }
    }
    this.#pos = i;
    if (i < text.length) return null;
    const split = this.#dataKeys === 1 && this.#split !== null && this.#split.end > 0 ? this.#split : null;
    return { kind: 'ok', split };
  }

  #topKey(): void {
    const raw = this.text.slice(this.#stringStart, this.#stringEnd + 1);
    this.#keyIsData =
      raw === '"data"' || (raw.length < 64 && raw.includes('\\') && decodeKey(raw) === 'data');
    if (this.#keyIsData) this.#dataKeys++;
  }
}

function decodeKey(raw: string): string | null {
  try {
    const key: unknown = JSON.parse(raw);
    return typeof key === 'string' ? key : null;
  } catch {
    return null;
  }
}

/** The whole text's verdict in one synchronous pass (small bodies). */
export function scanJson(text: string, maxDepth = MAX_JSON_DEPTH, maxKeys = MAX_OBJECT_KEYS): JsonShape {
  return new JsonScanner(text, Number.POSITIVE_INFINITY, maxDepth, maxKeys).scan(text.length) as JsonShape;
}

/**
 * JSON pointer of the container whose bracket is at offset `at` (found too deep by the scanner),
 * read from the text before it: each enclosing object's current key, each array's element index.
 * One pass over `text.slice(0, at)`; nothing is parsed.
 */
export function pointerAt(text: string, at: number, maxDepth = MAX_JSON_DEPTH): string {
  const isArray: boolean[] = [];
  const index: number[] = [];
  const keyStart: number[] = [];
  const keyEnd: number[] = [];
  let depth = 0;
  let inString = false;
  let stringStart = 0;
  let stringEnd = 0;
  for (let i = 0; i < at; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        stringEnd = i;
      }
    } else if (c === QUOTE) {
      inString = true;
      stringStart = i;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      depth++;
      if (depth > maxDepth + 1) break;
      isArray[depth] = c === OPEN_ARRAY;
      index[depth] = 0;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    } else if (c === COMMA && isArray[depth] === true) {
      index[depth] = (index[depth] ?? 0) + 1;
    } else if (c === COLON && isArray[depth] === false) {
      keyStart[depth] = stringStart;
      keyEnd[depth] = stringEnd;
    }
  }
  const keys: string[] = [];
  for (let d = 1; d <= Math.min(depth, maxDepth); d++) {
    const key = isArray[d]
      ? String(index[d] ?? 0)
      : keyText(text.slice(keyStart[d] ?? 0, Math.min((keyEnd[d] ?? 0) + 1, (keyStart[d] ?? 0) + 256)));
    keys.push(key.replaceAll('~', '~0').replaceAll('/', '~1'));
  }
  return `/${keys.join('/')}`;
}

/** A key's text as JSON would decode it; a key cut short (or odd) shows its raw characters. */
function keyText(raw: string): string {
  return decodeKey(raw) ?? raw.replace(/^"/, '').replace(/"$/, '');
}
