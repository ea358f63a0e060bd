import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import { decodeUtf8Yielding } from '../../lib/utf8-yielding.ts';
import { LoopYielder } from '../../lib/yield-to-loop.ts';
import {
  type DataSplit,
  JsonScanner,
  MAX_JSON_DEPTH,
  MAX_OBJECT_KEYS,
  pointerAt,
  scanJson,
} from './json-depth.ts';

/**
 * Bodies from this size (in characters) are scanned and parsed in pieces, yielding to the event
 * loop in between: one JSON.parse of 8 MiB of records with many distinct keys blocks ~80 ms.
 */
const LARGE_BODY_CHARS = 256 * 1024;
/** Characters scanned between two checks of the yielder. */
const SCAN_STEP = 64 * 1024;

type Parse = (text: string) => unknown;

/**
 * JSON only (anything else is a 415 from Fastify), with one difference from Fastify's parser: an
 * empty body is `undefined` rather than an error, so body-less calls such as describe work with
 * or without a Content-Type header. Routes with a body schema still reject a missing body. Bodies
 * nested deeper than MAX_JSON_DEPTH, or with an object of more than MAX_OBJECT_KEYS keys, are
 * refused (400) before they are parsed. Fastify's own parser (secure-json-parse: `__proto__` and
 * `constructor.prototype` refused) parses every text, whole or in pieces, so a large body gets
 * exactly the answers a small one gets.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const fastifyParse = app.getDefaultJsonParser('error', 'error');
  const parse: Parse = (text) => {
    let result: { error: Error | null; value: unknown } = { error: null, value: undefined };
    fastifyParse({} as FastifyRequest, text, (error: Error | null, value?: unknown) => {
      result = { error, value };
    });
    if (result.error !== null) throw result.error;
    return result.value;
  };
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    async (_request: FastifyRequest, body: string | Buffer) => {
      // Decoded here, in slices, rather than by Fastify at once (parseAs: 'string').
      const text = typeof body === 'string' ? body : await decodeUtf8Yielding(body);
      if (text.trim() === '') return undefined;
      if (text.length < LARGE_BODY_CHARS) {
        const shape = scanJson(text);
        if (shape.kind !== 'ok') throw refusal(text, shape);
        return parse(text);
      }
      return parseLarge(text, parse);
    },
  );
  // text/plain would otherwise be accepted as a string body; the API speaks JSON only.
  app.removeContentTypeParser(['text/plain']);
}

/** Scan, then parse the envelope and the `data` array's pieces, yielding between slices of work. */
async function parseLarge(text: string, parse: Parse): Promise<unknown> {
  const yielder = new LoopYielder();
  await yielder.yielded();
  const scanner = new JsonScanner(text, LARGE_BODY_CHARS);
  let shape = null;
  for (let at = SCAN_STEP; shape === null; at += SCAN_STEP) {
    shape = scanner.scan(at);
    if (shape === null && yielder.due) await yielder.yielded();
  }
  if (shape.kind !== 'ok') throw refusal(text, shape);
  if (shape.split === null) {
    await yielder.yielded();
    return parse(text);
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
    if (bounds.length > 2 && piece.trim() === '') parse('[,]');
    const values = parse(`[${piece}]`) as unknown[];
    for (const value of values) data.push(value);
  }
  envelope.data = data;
  // Validation and the route run next, in the same turn of the loop: they get a slice of their own.
  await yielder.yielded();
  return envelope;
}

function refusal(text: string, shape: { kind: 'deep'; at: number } | { kind: 'wide' }): ApiError {
  if (shape.kind === 'wide') {
    return new ApiError(
      'too_many_fields',
      `An object in the body has more than ${MAX_OBJECT_KEYS} keys; a record may name at most ${MAX_OBJECT_KEYS} fields, and no other request needs more.`,
      { details: [{ limit: MAX_OBJECT_KEYS }] },
    );
  }
  const path = pointerAt(text, shape.at).slice(0, 200);
  return new ApiError(
    'invalid_body',
    `The body is nested more than ${MAX_JSON_DEPTH} levels deep (at ${path}); no request of this API needs that. Send field values as strings, numbers, booleans, null or arrays of strings.`,
    { details: [{ path, limit: MAX_JSON_DEPTH }] },
  );
}
