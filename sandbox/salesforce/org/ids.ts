/**
 * Salesforce record ids: a 3-character key prefix (the object), 12 base-62 characters, and for the
 * 18-character form a 3-character suffix that encodes which of the first 15 characters are upper
 * case, so the id survives case-insensitive systems.
 * https://help.salesforce.com/s/articleView?id=000385585
 */
const SUFFIX_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID15 = /^[a-zA-Z0-9]{15}$/;
const ID18 = /^[a-zA-Z0-9]{18}$/;

/** The case-safe suffix of a 15-character id. */
export function idSuffix(id15: string): string {
  let suffix = '';
  for (let chunk = 0; chunk < 3; chunk++) {
    let bits = 0;
    for (let i = 0; i < 5; i++) {
      const c = id15.charCodeAt(chunk * 5 + i);
      if (c >= 65 && c <= 90) bits |= 1 << i;
    }
    suffix += SUFFIX_ALPHABET[bits];
  }
  return suffix;
}

export function toId18(id15: string): string {
  return id15 + idSuffix(id15);
}

/**
 * The canonical 18-character form of a 15- or 18-character id, or null when malformed. An
 * 18-character id whose suffix does not match its first 15 characters is malformed, except when
 * only the suffix's case differs (Salesforce accepts the suffix in any case).
 */
export function normalizeId(value: string): string | null {
  if (value.length === 15) return ID15.test(value) ? toId18(value) : null;
  if (value.length !== 18 || !ID18.test(value)) return null;
  const id15 = value.slice(0, 15);
  const suffix = idSuffix(id15);
  return value.slice(15).toUpperCase() === suffix ? id15 + suffix : null;
}

export function isId(value: unknown): value is string {
  return typeof value === 'string' && normalizeId(value) !== null;
}

/** Key prefix (first 3 characters) of an id. */
export const keyPrefixOf = (id: string): string => id.slice(0, 3);

/**
 * Hands out ids in a deterministic sequence per key prefix: `<prefix>` + pod `4S` + `0` + 9 base-62
 * digits, as the ids of a real org look (`0014S000007NxmlQAC`).
 */
export class IdFactory {
  #counters = new Map<string, number>();
  readonly #start: number;

  constructor(start = 5_000_000) {
    this.#start = start;
  }

  next(prefix: string): string {
    const n = (this.#counters.get(prefix) ?? this.#start) + 1;
    this.#counters.set(prefix, n);
    let digits = '';
    let rest = n;
    for (let i = 0; i < 9; i++) {
      digits = BASE62[rest % 62] + digits;
      rest = Math.floor(rest / 62);
    }
    return toId18(`${prefix}4S0${digits}`);
  }

  reset(): void {
    this.#counters.clear();
  }

  /** The counters, to roll back to (composite allOrNone). */
  snapshot(): Map<string, number> {
    return new Map(this.#counters);
  }

  restore(counters: Map<string, number>): void {
    this.#counters = new Map(counters);
  }
}

/** A fixed id that is not a record's (org ids, record type ids): prefix + padded body + suffix. */
export function fixedId(prefix: string, body: string): string {
  const id15 = (prefix + '4S0' + body.padStart(9, '0')).slice(0, 15);
  return toId18(id15);
}
