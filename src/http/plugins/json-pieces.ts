import { LoopYielder } from '../../lib/yield-to-loop.ts';
import { type DataSplit, JsonScanner, type JsonShape } from './json-depth.ts';

/**
 * Bodies from this size (in characters) are scanned and parsed in pieces, yielding to the event
 * loop in between: one JSON.parse of 8 MiB of records with many distinct keys blocks ~80 ms.
 */
export const LARGE_BODY_CHARS = 256 * 1024;
/** Characters scanned between two checks of the yielder. */
const SCAN_STEP = 64 * 1024;

/** Parses one complete JSON text, throwing on invalid JSON. */
export type Parse = (text: string) => unknown;

/**
 * A large body's value: scanned (refused through `refuse` when too deep or too wide), then parsed
 * by `parse` as the envelope and the top-level `data` array's pieces of about `pieceChars`, or
 * whole when it has no such array, yielding to the event loop between slices of work. `parse`
 * sees only complete JSON texts, so it answers (and throws) as it would for a small body.
 */
export async function parseLargeJson(
  text: string,
  parse: Parse,
  refuse: (text: string, shape: Exclude<JsonShape, { kind: 'ok' }>) => Error,
  pieceChars = LARGE_BODY_CHARS,
): Promise<unknown> {
  const yielder = new LoopYielder();
  await yielder.yielded();
  const scanner = new JsonScanner(text, pieceChars);
  let shape = null;
  for (let at = SCAN_STEP; shape === null; at += SCAN_STEP) {
    shape = scanner.scan(at);
    if (shape === null && yielder.due) await yielder.yielded();
  }
  if (shape.kind !== 'ok') throw refuse(text, shape);
  if (shape.split === null) {
    await yielder.yielded();
    const value = parse(text);
    // Validation and the route run next, in the same turn of the loop: they get a slice of their own.
    await yielder.yielded();
    return value;
  }
  return parseSplit(text, shape.split, parse, yielder);
}

/**
 * The body with its `data` array emptied, then the array's elements a piece at a time. Every
 * piece must parse as `[piece]` and hold something (an empty piece would hide `,,` or a trailing
 * comma): the whole text is valid exactly when all of these are.
 */
async function parseSplit(
  text: string,
  split: DataSplit,
  parse: Parse,
  yielder: LoopYielder,
): Promise<unknown> {
  const envelope = parse(`${text.slice(0, split.start + 1)}${text.slice(split.end)}`) as { data: unknown[] };
  const bounds = [split.start, ...split.cuts, split.end];
  const data: unknown[] = [];
  for (let p = 0; p + 1 < bounds.length; p++) {
    if (yielder.due) await yielder.yielded();
    const piece = text.slice((bounds[p] as number) + 1, bounds[p + 1]);
    // `[,]` throws the parser's own invalid-JSON error.
    if (bounds.length > 2 && piece.trim() === '') parse('[,]');
    const values = parse(`[${piece}]`) as unknown[];
    for (const value of values) data.push(value);
  }
  envelope.data = data;
  // Validation and the route run next, in the same turn of the loop: they get a slice of their own.
  await yielder.yielded();
  return envelope;
}
