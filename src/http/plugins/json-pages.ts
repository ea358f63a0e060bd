import { isUtf8 } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import { type ParsedTokenInfo, Tokenizer, TokenParser, TokenType } from '@streamparser/json';
import { errorCodes } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import { MAX_DISTINCT_FIELDS } from '../../operations/field-bounds.ts';

/**
 * The deepest nesting any request body of the API needs is about 6 levels (a custom field's
 * `data.valueSet.valueSetDefinition.value[i].fullName`). Deeper JSON parses fine, but anything
 * that later walks it recursively (JSON.stringify, Array.prototype.join, loggers) overflows the
 * stack at a few thousand levels, so bodies deeper than this are refused while they are read.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Keys in one JSON object. A record names at most MAX_DISTINCT_FIELDS fields and no other body
 * comes near it; an object of ~900,000 keys in 8 MiB is slow to build and to walk, so such a body
 * is refused while it is read.
 */
export const MAX_OBJECT_KEYS = MAX_DISTINCT_FIELDS;

/**
 * Records per page of the top-level `data` array: a multiple of the CRMs' batch sizes (100 and 200
 * records a call), so a page maps to whole CRM calls; at the body limit's average record (~800
 * bytes) a page is ~160 KB of JSON, small enough to store or send on its own.
 */
export const PAGE_RECORDS = 200;

/**
 * Bytes given to the tokenizer at once: one write() stays a few milliseconds of work. A write is
 * not split, and 64 KiB of short unknown keys (each a new object shape) took ~30 ms, as did the
 * first 64 KiB a fresh process parses (code not yet compiled).
 */
export const FEED_BYTES = 16 * 1024;

/** A parsed body: its value, and the records of its top-level `data` array in pages when it has one. */
export interface JsonBody {
  value: unknown;
  pages: unknown[][] | null;
}

/** An empty (or blank) body: the caller's `undefined`, distinct from a JSON body of any value. */
export const BLANK = Symbol('blank body');

/**
 * A JSON body read as its bytes arrive, by @streamparser/json: `write` each chunk, then `end`.
 * Every token goes to one parser that checks the whole text and hands over the top-level `data`
 * array's elements one by one (kept by nobody but the pages), and every token outside that array
 * to a second one that builds the rest of the body (with `data: []`). The answers are those of
 * Fastify's JSON.parse-based parser: invalid JSON, and a `__proto__` key or a `constructor` with
 * a `prototype` key (secure-json-parse's check) left reachable in the value, throw
 * FST_ERR_CTP_INVALID_JSON_BODY; duplicate keys keep the last one, whichever of them is `data`;
 * a blank body is BLANK. Deeper than MAX_JSON_DEPTH, or an object with more than MAX_OBJECT_KEYS
 * keys, is refused (ApiError) as soon as the tokenizer reaches it.
 */
export class JsonPages {
  readonly #tokenizer = new Tokenizer({ stringBufferSize: 64 * 1024, numberBufferSize: 64 });
  readonly #main = new TokenParser({ paths: ['$.data.*'], keepStack: false });
  readonly #envelope = new TokenParser({ paths: ['$'] });
  readonly #utf8 = new WellFormedUtf8();
  readonly #shape = new Shape();
  #blank: StringDecoder | null = new StringDecoder('utf8');
  #error: unknown = null;
  #value: unknown = undefined;
  #pages: unknown[][] = [];
  #page: unknown[] = [];
  /** Records of the current `data` array with a `__proto__` or `constructor` key somewhere inside. */
  #suspects: unknown[] = [];
  #suspect = false;
  #envelopeSuspect = false;
  #dataIsArray = false;

  constructor() {
    this.#tokenizer.onToken = (token) => this.#onToken(token);
    this.#main.onValue = ({ value }) => this.#onRecord(value);
    this.#envelope.onValue = ({ value }) => {
      this.#value = value;
    };
  }

  /** Reads the next bytes; a refusal or invalid JSON is kept for `end` (the rest is still counted by the caller). */
  write(bytes: Uint8Array): void {
    if (this.#blank !== null && !/^\s*$/.test(this.#blank.write(bytes as Buffer))) this.#blank = null;
    if (this.#error !== null) return;
    try {
      this.#tokenizer.write(this.#utf8.write(bytes));
    } catch (error) {
      this.#error = error;
    }
  }

  /** The body, BLANK, or the refusal (ApiError) or Fastify's invalid-JSON error. */
  end(): JsonBody | typeof BLANK {
    if (this.#blank !== null && /^\s*$/.test(this.#blank.end())) return BLANK;
    if (this.#error === null) {
      try {
        this.#tokenizer.write(this.#utf8.end());
        this.#tokenizer.end();
      } catch (error) {
        this.#error = error;
      }
    }
    if (this.#error instanceof ApiError) throw this.#error;
    if (this.#error !== null || !this.#main.isEnded) throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
    if (this.#envelopeSuspect) refuseProtoKeys(this.#value);
    for (const record of this.#suspects) refuseProtoKeys(record);
    if (!this.#dataIsArray) return { value: this.#value, pages: null };
    if (this.#page.length > 0) this.#pages.push(this.#page);
    (this.#value as { data: unknown[] }).data = this.#pages.flat();
    return { value: this.#value, pages: this.#pages };
  }

  #onToken(info: ParsedTokenInfo): void {
    this.#main.write(info);
    const shape = this.#shape;
    const inData = shape.inData;
    switch (info.token) {
      case TokenType.LEFT_BRACE:
      case TokenType.LEFT_BRACKET:
        shape.open(info.token === TokenType.LEFT_BRACKET);
        if (shape.inData && !inData) this.#dataIsArray = true;
        break;
      case TokenType.RIGHT_BRACE:
      case TokenType.RIGHT_BRACKET:
        shape.close();
        break;
      case TokenType.COMMA:
        shape.comma();
        break;
      case TokenType.STRING:
        if (shape.expectsKey) this.#onKey(info.value as string);
        break;
    }
    // The envelope gets the `data` array's brackets, not what is between them.
    if (!inData || !shape.inData) this.#envelope.write(info);
  }

  #onKey(key: string): void {
    const shape = this.#shape;
    shape.key(key);
    if (key === '__proto__' || key === 'constructor') {
      if (shape.inData) this.#suspect = true;
      else this.#envelopeSuspect = true;
    }
    if (shape.depth === 1 && shape.rootIsObject && key === 'data') {
      // A later `data` key replaces an earlier one, as in JSON.parse.
      this.#pages = [];
      this.#page = [];
      this.#suspects = [];
      this.#suspect = false;
      this.#dataIsArray = false;
    }
  }

  #onRecord(value: unknown): void {
    // `$.data.*` also names the members of a `data` object, which the envelope keeps.
    if (!this.#shape.inData) return;
    if (this.#suspect) {
      this.#suspects.push(value);
      this.#suspect = false;
    }
    this.#page.push(value);
    if (this.#page.length === PAGE_RECORDS) {
      this.#pages.push(this.#page);
      this.#page = [];
    }
  }
}

/**
 * Where the tokenizer is: each open container's kind and current key or index, each object's key
 * count; refuses (ApiError) a container nested deeper than MAX_JSON_DEPTH or an object of more than
 * MAX_OBJECT_KEYS keys. Fed tokens the parser accepted, so it needs no checks of its own.
 */
class Shape {
  depth = 0;
  rootIsObject = false;
  /** Inside the root object's `data` array (its brackets excluded). */
  inData = false;
  /** The next string token is an object key. */
  expectsKey = false;
  readonly #isArray: boolean[] = [false];
  /** An array's current index, an object's key count. */
  readonly #count: number[] = [0];
  readonly #key: string[] = [''];

  open(isArray: boolean): void {
    if (this.depth === MAX_JSON_DEPTH) throw tooDeep(this.#pointer());
    const d = ++this.depth;
    this.#isArray[d] = isArray;
    this.#count[d] = 0;
    this.expectsKey = !isArray;
    if (d === 1) this.rootIsObject = !isArray;
    else if (d === 2 && isArray && this.rootIsObject && this.#key[1] === 'data') this.inData = true;
  }

  close(): void {
    if (this.depth === 2 && this.inData) this.inData = false;
    this.depth--;
    this.expectsKey = false;
  }

  comma(): void {
    const d = this.depth;
    if (this.#isArray[d] === true) this.#count[d] = (this.#count[d] ?? 0) + 1;
    else this.expectsKey = true;
  }

  key(key: string): void {
    const d = this.depth;
    const count = (this.#count[d] ?? 0) + 1;
    if (count > MAX_OBJECT_KEYS) throw tooWide();
    this.#count[d] = count;
    this.#key[d] = key;
    this.expectsKey = false;
  }

  /** JSON pointer of the container about to open: each enclosing object's key, each array's index. */
  #pointer(): string {
    const keys: string[] = [];
    for (let d = 1; d <= this.depth; d++) {
      const key =
        this.#isArray[d] === true ? String(this.#count[d] ?? 0) : (this.#key[d] ?? '').slice(0, 256);
      keys.push(key.replaceAll('~', '~0').replaceAll('/', '~1'));
    }
    return `/${keys.join('/')}`.slice(0, 200);
  }
}

function tooWide(): ApiError {
  return new ApiError(
    'too_many_fields',
    `An object in the body has more than ${MAX_OBJECT_KEYS} keys; a record may name at most ${MAX_OBJECT_KEYS} fields, and no other request needs more.`,
    { details: [{ limit: MAX_OBJECT_KEYS }] },
  );
}

function tooDeep(path: string): ApiError {
  return new ApiError(
    'invalid_body',
    `The body is nested more than ${MAX_JSON_DEPTH} levels deep (at ${path}); no request of this API needs that. Send field values as strings, numbers, booleans, null or arrays of strings.`,
    { details: [{ path, limit: MAX_JSON_DEPTH }] },
  );
}

/**
 * secure-json-parse's check, as Fastify runs it (protoAction and constructorAction 'error'): an
 * object reachable from `value` with an own `__proto__` key, or an own `constructor` object with
 * an own `prototype` key, makes the body invalid JSON.
 */
function refuseProtoKeys(value: unknown): void {
  const has = (node: object, key: string) => Object.hasOwn(node, key);
  let next: unknown[] = [value];
  while (next.length > 0) {
    const nodes = next;
    next = [];
    for (const node of nodes) {
      if (node === null || typeof node !== 'object') continue;
      const ctor = (node as { constructor?: unknown }).constructor;
      if (
        has(node, '__proto__') ||
        (has(node, 'constructor') && typeof ctor === 'object' && ctor !== null && has(ctor, 'prototype'))
      ) {
        throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
      }
      for (const key in node) next.push((node as Record<string, unknown>)[key]);
    }
  }
}

/**
 * The body's bytes as well-formed UTF-8 for the tokenizer (whose decoder is fatal), with invalid
 * sequences replaced by U+FFFD exactly as `Buffer#toString` does for JSON.parse. Valid input (the
 * usual case) passes through; a character cut between two chunks waits for the next one.
 */
class WellFormedUtf8 {
  #carry: Buffer | null = null;
  #decoder: StringDecoder | null = null;

  write(chunk: Uint8Array): Uint8Array {
    if (this.#decoder !== null) return Buffer.from(this.#decoder.write(Buffer.from(chunk)));
    const bytes = this.#carry === null ? chunk : Buffer.concat([this.#carry, chunk]);
    const cut = completeCharacters(bytes);
    const head = bytes.subarray(0, cut);
    if (isUtf8(head)) {
      this.#carry = cut < bytes.length ? Buffer.from(bytes.subarray(cut)) : null;
      return head;
    }
    this.#carry = null;
    this.#decoder = new StringDecoder('utf8');
    return Buffer.from(this.#decoder.write(Buffer.from(bytes)));
  }

  end(): Uint8Array {
    const rest = this.#decoder?.end() ?? this.#carry?.toString('utf8') ?? '';
    return Buffer.from(rest);
  }
}

/** Length of `bytes` without a multi-byte character cut short at its end. */
function completeCharacters(bytes: Uint8Array): number {
  const length = bytes.length;
  for (let i = length - 1; i >= 0 && i >= length - 4; i--) {
    const b = bytes[i] as number;
    if ((b & 0xc0) === 0x80) continue;
    const size = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + size > length ? i : length;
  }
  return length;
}
