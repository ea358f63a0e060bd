/**
 * JSON text built byte by byte, so a fuzzed body can hold what JSON.stringify never writes:
 * duplicate keys, invalid UTF-8 inside strings, lone surrogate escapes, nesting deeper than the
 * stack, numbers out of double range.
 */

/** Bytes written verbatim where a value belongs. */
export class RawJson {
  readonly bytes: Buffer;
  /** Short description for failure messages (the bytes may be megabytes long). */
  readonly label: string;
  constructor(bytes: Buffer, label: string) {
    this.bytes = bytes;
    this.label = label;
  }
}

/** An object written from its entries, in order, duplicate keys included. */
export class JsonEntries {
  readonly entries: Array<[string, FuzzValue]>;
  constructor(entries: Array<[string, FuzzValue]>) {
    this.entries = entries;
  }
}

export type FuzzValue =
  | null
  | boolean
  | number
  | string
  | RawJson
  | JsonEntries
  | FuzzValue[]
  | { [key: string]: FuzzValue };

export const raw = (text: string, label = text.slice(0, 60)) => new RawJson(Buffer.from(text, 'utf8'), label);

function write(value: FuzzValue, out: Buffer[]): void {
  if (value instanceof RawJson) {
    out.push(value.bytes);
  } else if (value instanceof JsonEntries) {
    out.push(Buffer.from('{'));
    value.entries.forEach(([key, item], i) => {
      out.push(Buffer.from(`${i === 0 ? '' : ','}${JSON.stringify(key)}:`));
      write(item, out);
    });
    out.push(Buffer.from('}'));
  } else if (Array.isArray(value)) {
    out.push(Buffer.from('['));
    value.forEach((item, i) => {
      if (i > 0) out.push(Buffer.from(','));
      write(item, out);
    });
    out.push(Buffer.from(']'));
  } else if (typeof value === 'object' && value !== null) {
    write(new JsonEntries(Object.entries(value)), out);
  } else {
    // JSON.stringify turns lone surrogates into \u escapes and NaN into null: still valid text.
    out.push(Buffer.from(JSON.stringify(value)));
  }
}

export function encodeJson(value: FuzzValue): Buffer {
  const out: Buffer[] = [];
  write(value, out);
  return Buffer.concat(out);
}

/** A short, bounded description of a value for failure messages. */
export function describeValue(value: FuzzValue, budget = 300): string {
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof RawJson) return `<raw ${v.bytes.length} B: ${v.label}>`;
    if (v instanceof JsonEntries) return { '<entries>': v.entries };
    if (typeof v === 'string' && v.length > 80) return `<string ${v.length} chars: ${v.slice(0, 40)}…>`;
    return v;
  });
  return text.length > budget ? `${text.slice(0, budget)}…` : text;
}
