// Log lines to stdout that never block the service. Node writes to a pipe synchronously on Linux,
// so a reader that stops reading (`npm start | head -c 100`, a stuck log shipper) would stop the
// event loop at the next line: no request, no /healthz, no SIGTERM. Here the pipe is opened again
// as a file description of our own, non-blocking, and written through a socket: lines queue in
// memory up to a bound, and past it they are dropped and counted; once the reader takes lines
// again, one line says how many were lost. A socket stdout (a parent's socket pair, journald) is
// written without blocking already, but into a queue without bound: it gets the same bound.
import { EventEmitter } from 'node:events';
import { closeSync, fstatSync, openSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';

export interface LogDestination {
  /** What pino writes each line to. */
  write(line: string): boolean;
  /** Lines dropped since start because the reader was full, slow or gone. */
  dropped(): number;
}

export interface LogDestinationOptions {
  /** Lines wait until this many bytes are pending (one write for many lines). */
  batchBytes: number;
  /** Longest a line waits when traffic is low. */
  flushMs: number;
  /** Bytes the reader may fall behind before lines are dropped. */
  maxQueuedBytes: number;
}

const DEFAULTS: LogDestinationOptions = { batchBytes: 4096, flushMs: 250, maxQueuedBytes: 1 << 20 };

const lineCount = (text: string) => {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

/** What the queue writes to: a socket over the reopened pipe, or stdout's own socket descriptor. */
interface Sink {
  readonly writableLength: number;
  write(text: string): unknown;
  on(event: 'error' | 'drain', listener: () => void): unknown;
  unref(): unknown;
  destroy(): unknown;
}

/**
 * A non-blocking destination for stdout when it is a pipe (opened again through /proc) or a
 * socket; undefined otherwise (a file or a terminal: their writes do not stall, and the caller
 * keeps its usual destination).
 */
export function pipeLogDestination(options: Partial<LogDestinationOptions> = {}): LogDestination | undefined {
  const o = { ...DEFAULTS, ...options };
  let stat: ReturnType<typeof fstatSync>;
  try {
    stat = fstatSync(1);
  } catch {
    return undefined;
  }
  if (stat.isSocket()) return socketDestination(o);
  if (!stat.isFIFO()) return undefined;
  let fd: number;
  try {
    fd = openSync('/proc/self/fd/1', 'w');
  } catch {
    return undefined;
  }
  let socket: Socket;
  try {
    socket = new Socket({ fd, readable: false, writable: true });
  } catch {
    closeSync(fd);
    return undefined;
  }
  return new QueuedDestination(socket, fd, o);
}

/**
 * A socket cannot be opened again through /proc (ENXIO), and writes through `process.stdout` that
 * the reader never takes stay pending in libuv, holding the process at exit. Its descriptor is
 * non-blocking (`process.stdout` made it so), so it is written directly instead: a full socket
 * answers EAGAIN at once and the rest waits here, counted against the same bound.
 */
function socketDestination(o: LogDestinationOptions): LogDestination | undefined {
  if (!(process.stdout instanceof Socket)) return undefined;
  return new QueuedDestination(new DescriptorSink(1, o.flushMs), 1, o);
}

/** Writes to a non-blocking descriptor without ever leaving a write pending: what EAGAIN refuses waits here. */
class DescriptorSink extends EventEmitter implements Sink {
  readonly #fd: number;
  readonly #timer: NodeJS.Timeout;
  #chunks: Buffer[] = [];
  /** Bytes of the first chunk already written. */
  #offset = 0;
  writableLength = 0;

  constructor(fd: number, retryMs: number) {
    super();
    this.#fd = fd;
    this.#timer = setInterval(() => this.#flush(), retryMs);
    this.#timer.unref();
  }

  write(text: string): boolean {
    const chunk = Buffer.from(text);
    this.#chunks.push(chunk);
    this.writableLength += chunk.length;
    this.#flush();
    return this.writableLength === 0;
  }

  unref(): this {
    return this;
  }

  destroy(): this {
    clearInterval(this.#timer);
    this.#chunks = [];
    this.#offset = 0;
    this.writableLength = 0;
    return this;
  }

  #flush(): void {
    const waiting = this.writableLength > 0;
    for (let head = this.#chunks[0]; head !== undefined; head = this.#chunks[0]) {
      let n: number;
      try {
        n = writeSync(this.#fd, head, this.#offset);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return;
        this.destroy();
        this.emit('error', error);
        return;
      }
      this.writableLength -= n;
      this.#offset += n;
      if (this.#offset === head.length) {
        this.#chunks.shift();
        this.#offset = 0;
      }
    }
    if (waiting) this.emit('drain');
  }
}

class QueuedDestination implements LogDestination {
  readonly #socket: Sink;
  readonly #fd: number;
  readonly #o: LogDestinationOptions;
  #batch = '';
  #dropped = 0;
  /** Dropped lines not yet reported in the log itself. */
  #unreported = 0;
  #gone = false;

  constructor(socket: Sink, fd: number, options: LogDestinationOptions) {
    this.#socket = socket;
    this.#fd = fd;
    this.#o = options;
    // EPIPE and the like: the reader is gone for good; every later line is dropped and counted.
    socket.on('error', () => {
      this.#gone = true;
    });
    socket.on('drain', () => this.#send());
    socket.unref();
    const timer = setInterval(() => this.#send(), options.flushMs);
    timer.unref();
    // A write the pipe has not taken keeps the process alive: at shutdown it gets a moment, then is dropped.
    const giveUp = () => {
      setTimeout(() => {
        if (socket.writableLength === 0) return;
        this.#dropped += 1;
        this.#gone = true;
        socket.destroy();
      }, options.flushMs * 8).unref();
    };
    process.once('SIGTERM', giveUp);
    process.once('SIGINT', giveUp);
    // At exit only what is still in the batch can go, and only if the pipe takes it at once.
    process.once('exit', () => {
      clearInterval(timer);
      if (this.#gone || this.#batch === '' || socket.writableLength > 0) return;
      try {
        writeSync(this.#fd, this.#batch);
      } catch {
        // The pipe is full (EAGAIN) or closed: these lines are lost, as the count says.
      }
    });
  }

  write(line: string): boolean {
    if (this.#gone) {
      this.#drop(line);
      return true;
    }
    this.#batch += line;
    if (this.#batch.length >= this.#o.batchBytes) this.#send();
    return true;
  }

  dropped(): number {
    return this.#dropped;
  }

  #drop(text: string): void {
    const n = lineCount(text);
    this.#dropped += n;
    this.#unreported += n;
  }

  #send(): void {
    if (this.#batch === '') return;
    const text = this.#batch;
    this.#batch = '';
    if (this.#gone || this.#socket.writableLength > this.#o.maxQueuedBytes) {
      this.#drop(text);
      return;
    }
    if (this.#unreported > 0) {
      const note = {
        level: 40,
        time: Date.now(),
        msg: 'log lines dropped: the log reader fell behind; see crm_proxy_log_lines_dropped_total',
        dropped: this.#unreported,
      };
      this.#unreported = 0;
      this.#socket.write(`${JSON.stringify(note)}\n`);
    }
    this.#socket.write(text);
  }
}

const byLogger = new WeakMap<object, LogDestination>();

/** Remembers which destination a logger writes to, for the metric of dropped lines. */
export function attachDestination(logger: object, destination: LogDestination): void {
  byLogger.set(logger, destination);
}

/** Lines the logger's destination dropped (0 for a destination that never drops). */
export function droppedLines(logger: object): number {
  return byLogger.get(logger)?.dropped() ?? 0;
}
