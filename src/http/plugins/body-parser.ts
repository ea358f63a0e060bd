import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { AdmissionQueue } from '../../lib/admission.ts';
import { sliceUsed, yieldToLoop } from '../../lib/yield-to-loop.ts';
import { BLANK, FEED_BYTES, type JsonBody, JsonPages } from './json-pages.ts';

/**
 * JSON only (anything else is a 415 from Fastify), with one difference from Fastify's parser: an
 * empty body is `undefined` rather than an error, so body-less calls such as describe work with
 * or without a Content-Type header. Routes with a body schema still reject a missing body. The
 * answers are Fastify's (secure-json-parse: `__proto__` and `constructor.prototype` refused), and
 * bodies nested deeper than MAX_JSON_DEPTH, or with an object of more than MAX_OBJECT_KEYS keys,
 * are refused (400) as soon as the parser gets there (json-pages.ts).
 *
 * Every body is parsed as its bytes arrive (at most `bodyLimit` of them), FEED_BYTES at a time
 * with yields to the event loop between slices of work, into the records of its `data` array
 * and the rest. Large bodies (from LARGE_BODY_BYTES) are parsed a few at a time: at
 * most LARGE_BODIES_AT_ONCE bytes of them (at least one body, whatever its size) are materialised
 * at once, from their first parsed byte until an insert, update or delete lets go of its parsed
 * body (`releaseBody`: once its job is stored, or when its direct write starts) and, for any other
 * route, until the body is parsed. The others wait, in arrival order, unread (their bytes stay in
 * the socket): fifty 1 MB bodies arriving together make neither fifty parsed record lists nor 50 MB
 * of raw chunks at once.
 */
export function registerJsonParser(app: FastifyInstance, bodyLimit: number): void {
  const large = new AdmissionQueue(LARGE_BODIES_AT_ONCE);
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser('application/json', async (request: FastifyRequest, payload: Payload) => {
    try {
      const body = await readJson(request, payload, bodyLimit, large);
      if (body === BLANK) {
        releaseBody(request);
        return undefined;
      }
      // Only a batch write keeps its place past the parse, until its job is stored or it runs
      // directly; any other request lets go now, so that a slow CRM call never holds up others.
      if (!HELD_BY.has(request.routeOptions.schema?.['x-crm-operation'])) releaseBody(request);
      return body.value;
    } catch (error) {
      releaseBody(request);
      throw error;
    }
  });
  app.addHook('onResponse', (request, _reply, done) => {
    releaseBody(request);
    done();
  });
  // text/plain would otherwise be accepted as a string body; the API speaks JSON only.
  app.removeContentTypeParser(['text/plain']);
}

/** Bodies from this many bytes take a place among the large bodies materialised at once. */
const LARGE_BODY_BYTES = 256 * 1024;
/** Bodies from this many bytes are validated in a turn of the event loop after their parse's. */
const VALIDATED_APART_FROM = 64 * 1024;

type Payload = NodeJS.ReadableStream & { receivedEncodedLength?: number };

/**
 * The body parsed as it arrives. A body declared large waits for its place before it is parsed
 * (its chunks queue meanwhile, as they are read); one of unknown length (chunked) is read whole
 * first, then takes its place if it is large. Limits and length are checked before the parse's
 * verdict, as Fastify's own reader does.
 */
async function readJson(
  request: FastifyRequest,
  payload: Payload,
  limit: number,
  large: AdmissionQueue,
): Promise<JsonBody | typeof BLANK> {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
  const feed = new Feed(new JsonPages());
  const giveUp = new AbortController();
  let waiting: Waiting | undefined;
  if (declared >= LARGE_BODY_BYTES) {
    // Not admitted at once: the body stays unread (in the socket) until its turn.
    if (!large.fits(declared)) waiting = new Waiting(payload, request.raw.socket);
    void large.enter(declared, giveUp.signal).then((leave) => {
      if (leave === undefined) return;
      if (giveUp.signal.aborted) leave();
      else hold(request, leave);
      waiting?.resume();
      waiting = undefined;
      feed.admit();
    });
  } else if (!Number.isNaN(declared)) {
    feed.admit();
  }
  try {
    const length = await readChunks(request, payload, limit, (chunk) => feed.push(chunk), waiting);
    if (Number.isNaN(declared)) {
      const leave = length >= LARGE_BODY_BYTES ? await large.enter(length) : undefined;
      if (leave !== undefined) hold(request, leave);
      feed.admit();
    }
    const body = await feed.end();
    // Validation and the route run next, in the same turn of the loop: they get a slice of their
    // own (checking 10,000 ids, a 0.2 MB body, takes ~10 ms).
    if (length >= VALIDATED_APART_FROM) await yieldToLoop();
    return body;
  } catch (error) {
    giveUp.abort();
    waiting?.resume();
    feed.stop();
    throw error;
  }
}

/**
 * A declared-large body waiting for its place, left unread: its bytes stay in the socket (the
 * client's sending blocks) rather than in this process, where fifty waiting 1 MB bodies were 50 MB
 * of chunks held for seconds (old enough to be freed only by a full collection). The socket's idle
 * timer is off meanwhile: it is the service, not the client, that is not reading.
 */
class Waiting {
  readonly #timeout: number | undefined;
  #resumed = false;

  private readonly payload: Payload;
  private readonly socket: { timeout?: number; setTimeout?(ms: number): unknown } | undefined;
  constructor(payload: Payload, socket: { timeout?: number; setTimeout?(ms: number): unknown } | undefined) {
    this.payload = payload;
    this.socket = socket;
    this.#timeout = socket?.timeout;
    if (this.#timeout !== undefined && this.#timeout > 0) socket?.setTimeout?.(0);
  }

  /** Pauses the body once its reader is attached (attaching a `data` listener resumes it). */
  pause(): void {
    if (!this.#resumed) this.payload.pause();
  }

  resume(): void {
    if (this.#resumed) return;
    this.#resumed = true;
    if (this.#timeout !== undefined && this.#timeout > 0) this.socket?.setTimeout?.(this.#timeout);
    this.payload.resume();
  }
}

/**
 * Chunks on their way to the parser: queued until the body is admitted, then parsed FEED_BYTES at
 * a time, yielding to the event loop whenever a slice of work is used up (a chunk read in one go,
 * such as an injected body, can be the whole body).
 */
class Feed {
  readonly #queue: Buffer[] = [];
  #admitted = false;
  #admit: () => void = () => {};
  readonly #admission = new Promise<void>((resolve) => {
    this.#admit = resolve;
  });
  #pumping = false;
  /** The latest run of #pump: each starts once the one before has ended. */
  #pumped: Promise<void> = Promise.resolve();

  private readonly reader: JsonPages;
  constructor(reader: JsonPages) {
    this.reader = reader;
  }

  push(chunk: Buffer): void {
    this.#queue.push(chunk);
    this.#start();
  }

  admit(): void {
    this.#admitted = true;
    this.#admit();
    this.#start();
  }

  /** Once admitted and every chunk is parsed: the body (or its refusal, thrown). */
  async end(): Promise<JsonBody | typeof BLANK> {
    await this.#admission;
    await this.#pumped;
    return this.reader.end();
  }

  /** Drops what is not parsed yet: the body is refused. */
  stop(): void {
    this.#queue.length = 0;
  }

  #start(): void {
    if (!this.#admitted || this.#pumping || this.#queue.length === 0) return;
    this.#pumping = true;
    this.#pumped = this.#pump();
  }

  /** Parses the queue, new chunks included, until it is empty (the flag drops in that same turn). */
  async #pump(): Promise<void> {
    try {
      for (let chunk = this.#queue.shift(); chunk !== undefined; chunk = this.#queue.shift()) {
        for (let at = 0; at < chunk.length; at += FEED_BYTES) {
          if (sliceUsed()) await yieldToLoop();
          this.reader.write(chunk.subarray(at, at + FEED_BYTES));
        }
      }
    } finally {
      this.#pumping = false;
    }
  }
}

/**
 * Reads the body, handing its chunks to `onChunk` as they arrive, with Fastify's own checks: more
 * than `limit` bytes (declared or sent) is FST_ERR_CTP_BODY_TOO_LARGE (413), a length other than
 * the declared one FST_ERR_CTP_INVALID_CONTENT_LENGTH, a stream error a 400. Resolves with the length.
 */
function readChunks(
  request: FastifyRequest,
  payload: Payload,
  limit: number,
  onChunk: (chunk: Buffer) => void,
  waiting?: Waiting,
): Promise<number> {
  const declared = Number(request.headers['content-length']);
  return new Promise((resolve, reject) => {
    let length = 0;
    const stop = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
    };
    function onData(chunk: Buffer | string) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      length += bytes.length;
      if (length > limit || (payload.receivedEncodedLength ?? 0) > limit) {
        stop();
        reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        return;
      }
      onChunk(bytes);
    }
    function onEnd(error?: Error & { statusCode?: number }) {
      stop();
      if (error !== undefined && error !== null) {
        if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
        reject(error);
        return;
      }
      if (!Number.isNaN(declared) && (payload.receivedEncodedLength || length) !== declared) {
        reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
        return;
      }
      resolve(length);
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
    waiting?.pause();
  });
}

/**
 * Bytes of large bodies materialised at once (two bodies of 1 MiB). Parsing is work for the event
 * loop, so more at once would not be faster; and what is live when V8 ends a full collection sets
 * how far the heap may grow before the next one (up to four times as far), so every parsed body
 * held at once costs several times its size at the peak.
 */
const LARGE_BODIES_AT_ONCE = 2 * 1024 * 1024;

/** Routes whose parsed body is held until `releaseBody`: writes that may run as jobs. */
const HELD_BY = new Set<string | undefined>(['insert', 'update', 'delete']);

/** Requests holding a place among the large bodies materialised at once, and how they leave it. */
const held = new WeakMap<FastifyRequest, () => void>();

/**
 * Notes the request's place. It is left by `releaseBody`: when the request lets go of its body,
 * when it has answered (onResponse), or when its client goes away (the socket closes; a client
 * gone after sending its whole body gets neither onRequestAbort nor, always, onResponse).
 */
function hold(request: FastifyRequest, leave: () => void): void {
  const socket = request.raw.socket;
  const gone = () => releaseBody(request);
  socket.once('close', gone);
  held.set(request, () => {
    socket.removeListener('close', gone);
    leave();
  });
  if (socket.destroyed) releaseBody(request);
}

/**
 * The request no longer holds its parsed body (or is done with it): its place among the large
 * bodies materialised at once goes to the next one. Safe to call more than once, and for any request.
 */
export function releaseBody(request: FastifyRequest): void {
  const leave = held.get(request);
  if (leave === undefined) return;
  held.delete(request);
  leave();
}
