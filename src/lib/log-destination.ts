// Log lines to a stdout pipe or socket that never block the service when the reader stops reading:
// past a bound of pending bytes lines are dropped and counted, and one line reports the loss later.
// sonic-boom needs steering for that:
// - `process.stdout` is opened first, so libuv makes the descriptor non-blocking (a blocking write
//   to a full pipe would hold a pool thread, and exit joins those threads).
// - its EAGAIN retry timer holds the loop and its flushSync retries EPIPE forever: `retryEAGAIN`
//   refuses retries, an unref'd timer retries, and flushSync is never called.
// - it is built here rather than with `pino.destination()`, so pino registers no exit flush.
import { fstatSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { symbols } from 'pino';
import sonicBoom from 'sonic-boom';

// A CommonJS module typed with a named export.
const { SonicBoom } = sonicBoom;
type SonicBoom = InstanceType<typeof SonicBoom>;

/** Lines wait until this many bytes are pending (one write for many lines). */
export const LOG_BATCH_BYTES = 4096;
/** Longest a line waits when traffic is low; also how often a refused write is tried again. */
export const LOG_FLUSH_MS = 250;
/** Bytes the reader may fall behind before lines are dropped. */
const MAX_QUEUED_BYTES = 1 << 20;

const lineCount = (text: string) => text.match(/\n/g)?.length ?? 0;

/** A non-blocking destination for stdout when it is a pipe or a socket; undefined otherwise (no stalls there). */
export function pipeLogDestination(): StdoutDestination | undefined {
  let stat: ReturnType<typeof fstatSync>;
  try {
    stat = fstatSync(1);
  } catch {
    return undefined;
  }
  if (!stat.isFIFO() && !stat.isSocket()) return undefined;
  // Opens stdout as a libuv stream, which makes the descriptor non-blocking.
  if (!(process.stdout instanceof Socket)) return undefined;
  return new StdoutDestination();
}

class StdoutDestination {
  readonly #sonic: SonicBoom;
  /** Lines not yet handed to sonic-boom. */
  #batch = '';
  /** Batches handed to sonic-boom and not yet written in full. */
  readonly #handed: Array<{ bytes: number; lines: number }> = [];
  #dropped = 0;
  /** Dropped lines not yet reported in the log itself. */
  #unreported = 0;
  #noteDue = false;
  /** A write was refused (EAGAIN): the next tick tries again. */
  #stalled = false;
  /** The reader is gone (EPIPE) or was given up at shutdown: every later line is dropped. */
  #gone = false;
  /** Set by sonic-boom's `drop` event during a write past the bound. */
  #refused = false;
  #drained: (() => void) | undefined;

  constructor() {
    this.#sonic = new SonicBoom({
      fd: 1,
      sync: false,
      minLength: 0,
      maxLength: MAX_QUEUED_BYTES,
      retryEAGAIN: () => false,
    });
    this.#sonic.on('drop', () => {
      this.#refused = true;
    });
    this.#sonic.on('write', (n: number) => this.#written(n));
    this.#sonic.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EAGAIN' || error.code === 'EBUSY') this.#stalled = true;
      else this.#giveUp();
    });
    const timer = setInterval(() => this.#send(), LOG_FLUSH_MS);
    timer.unref();
    process.once('exit', () => {
      clearInterval(timer);
      this.#writeAtExit();
    });
  }

  /** What pino writes each line to. */
  write(line: string): boolean {
    if (this.#gone) {
      this.#drop(lineCount(line));
      return true;
    }
    this.#batch += line;
    if (this.#batch.length >= LOG_BATCH_BYTES) this.#send();
    return true;
  }

  /** Lines dropped since start because the reader was full, slow or gone. */
  dropped(): number {
    return this.#dropped;
  }

  /** Gives pending lines up to `graceMs` to reach the reader; what is left then is dropped. */
  async close(graceMs: number): Promise<void> {
    if (this.#gone) return;
    this.#send();
    if (this.#handed.length > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.#drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#drained = undefined;
    }
    if (this.#handed.length > 0) this.#giveUp();
  }

  #drop(lines: number): void {
    this.#dropped += lines;
    this.#unreported += lines;
  }

  /** Hands text to sonic-boom; false when it is past the bound (sonic-boom dropped it). */
  #hand(text: string): boolean {
    this.#refused = false;
    this.#sonic.write(text);
    if (this.#refused) return false;
    const bytes = Buffer.byteLength(text);
    if (bytes > 0) this.#handed.push({ bytes, lines: lineCount(text) });
    return true;
  }

  #send(): void {
    if (this.#gone) return;
    const text = this.#batch;
    this.#batch = '';
    if (text === '') {
      // A refused write is tried again (sonic-boom writes what it holds first).
      if (this.#stalled) {
        this.#stalled = false;
        this.#hand('');
      }
      return;
    }
    this.#stalled = false;
    if (!this.#hand(text)) this.#drop(lineCount(text));
  }

  /** The reader took `n` bytes: it reads again, so lines lost before are reported. */
  #written(n: number): void {
    let left = n;
    while (left > 0 && this.#handed.length > 0) {
      const head = this.#handed[0]!;
      const taken = Math.min(left, head.bytes);
      head.bytes -= taken;
      left -= taken;
      if (head.bytes === 0) this.#handed.shift();
    }
    if (this.#handed.length === 0) this.#drained?.();
    if (n > 0 && this.#unreported > 0 && !this.#noteDue) {
      this.#noteDue = true;
      process.nextTick(() => this.#report());
    }
  }

  #report(): void {
    this.#noteDue = false;
    if (this.#gone || this.#unreported === 0) return;
    const note = {
      level: 40,
      time: Date.now(),
      msg: 'log lines dropped: the log reader fell behind; see crm_proxy_log_lines_dropped_total',
      dropped: this.#unreported,
    };
    if (this.#hand(`${JSON.stringify(note)}\n`)) this.#unreported = 0;
  }

  /** The reader is gone, or is given up: what sonic-boom holds and every later line is dropped. */
  #giveUp(): void {
    if (this.#gone) return;
    this.#gone = true;
    for (const handed of this.#handed.splice(0)) this.#drop(handed.lines);
    this.#drop(lineCount(this.#batch));
    this.#batch = '';
    this.#sonic.destroy();
  }

  /** At exit, only lines not yet handed over go, and only what the reader takes at once. */
  #writeAtExit(): void {
    if (this.#gone || this.#batch === '') return;
    let rest = Buffer.from(this.#batch);
    this.#batch = '';
    try {
      while (rest.length > 0) rest = rest.subarray(writeSync(1, rest));
    } catch {
      // The pipe is full (EAGAIN) or closed (EPIPE): these lines are lost.
    }
  }
}

/** The logger's destination (pino keeps it under `streamSym`) when it is one of these. */
function destinationOf(logger: object): StdoutDestination | undefined {
  const stream = (logger as Record<symbol, unknown>)[symbols.streamSym];
  return stream instanceof StdoutDestination ? stream : undefined;
}

/** Lines the logger's destination dropped (0 for a destination that never drops). */
export function droppedLines(logger: object): number {
  return destinationOf(logger)?.dropped() ?? 0;
}

/** At shutdown: the logger's pending lines get up to `graceMs` to reach the reader, then are dropped. */
export async function closeLogDestination(logger: object, graceMs: number): Promise<void> {
  await destinationOf(logger)?.close(graceMs);
}
