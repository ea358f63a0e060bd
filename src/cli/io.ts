// The CLI's input and output: the process's environment and streams, or inside `withCliIo` the ones
// given (tests run several commands in one process), errors with exit codes, secrets, tables.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createInterface } from 'node:readline';
import { wholeNumber } from '../lib/whole-number.ts';
import type { ProviderModule } from '../providers/adapter.ts';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** The working directory configuration files are looked for in; the process's when absent. */
  cwd?: string;
  /** The CRMs the commands know; the built-in ones when absent (a build with a CRM of its own). */
  providers?: readonly ProviderModule[];
}

const scoped = new AsyncLocalStorage<CliIo>();

const processIo: CliIo = {
  env: process.env,
  // process.stdin is created on first access, which only a command reading stdin should do.
  get stdin() {
    return process.stdin;
  },
  stdout: process.stdout,
  stderr: process.stderr,
};

export function cliIo(): CliIo {
  return scoped.getStore() ?? processIo;
}

/** Runs `fn` (and everything it awaits) with `io` in place of the process's environment and streams. */
export function withCliIo<T>(io: CliIo, fn: () => Promise<T>): Promise<T> {
  return scoped.run(io, fn);
}

/** Bad invocation: exit code 2, with a pointer to help. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The command ran but could not do what was asked (unknown id, invalid input): exit code 1. */
export class CommandError extends Error {
  override name = 'CommandError';
}

const UNIT_MS: Record<string, number> = {
  s: 1e3,
  m: 60e3,
  h: 3600e3,
  d: 86400e3,
  w: 7 * 86400e3,
  y: 365 * 86400e3,
};

/** `30d`, `12h`, `90m`, `2w`, `1y` → milliseconds. */
export function parseDuration(value: string, flag: string): number {
  const m = /^(\d+)\s*([smhdwy])$/.exec(value.trim());
  const n = m ? Number(m[1]) * UNIT_MS[m[2]!]! : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new UsageError(`${flag} must be a positive duration such as 30d, 12h, 90m, 2w or 1y`);
  }
  return n;
}

/** `--flag N`: a whole number from 1 to `max`, `fallback` when the flag is absent. */
export function whole(value: string | undefined, flag: string, fallback: number, max: number): number {
  const n = wholeNumber(value, fallback, max);
  if (n === null) throw new UsageError(`${flag} takes a whole number from 1 to ${max}`);
  return n;
}

/** Secrets: one line of stdin each, or asked for with `prompts` and without echo on a terminal. */
export async function readLines(prompts: string[]): Promise<string[]> {
  const io = cliIo();
  const stdin = io.stdin as NodeJS.ReadableStream & { isTTY?: boolean };
  const terminal = stdin.isTTY === true;
  // On a terminal readline echoes what is typed to its output: a sink keeps the secret off the screen.
  const sink = { write: () => true } as unknown as NodeJS.WritableStream;
  const rl = createInterface({ input: stdin, output: terminal ? sink : undefined, terminal });
  const input = rl[Symbol.asyncIterator]();
  const lines: string[] = [];
  try {
    for (const prompt of prompts) {
      if (terminal) io.stderr.write(`${prompt}: `);
      const next = await input.next();
      if (next.done) break;
      lines.push(next.value.replace(/\r$/, ''));
      if (terminal) io.stderr.write('\n');
    }
    while (lines.length < prompts.length) lines.push('');
    return lines;
  } finally {
    rl.close();
  }
}

/** A secret from `--flag VALUE`, from stdin with `--flag -` (out of shell history and `ps`), else from `envName`. */
export async function readSecret(
  flagValue: string | undefined,
  envName: string,
): Promise<string | undefined> {
  if (flagValue === '-') {
    const [line = ''] = await readLines([
      envName.replace('CRM_PROXY_', '').replaceAll('_', ' ').toLowerCase(),
    ]);
    return line.trim() || undefined;
  }
  if (flagValue !== undefined) return flagValue;
  return cliIo().env[envName]?.trim() || undefined;
}

export function printTable(headers: string[], rows: string[][]): void {
  if (rows.length === 0) return;
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  cliIo().stdout.write(`${[line(headers), ...rows.map(line)].join('\n')}\n`);
}

/** A listing: the items as JSON with --json, `empty` when there are none, else a table. */
export function printListing<T>(
  items: readonly T[],
  json: boolean,
  empty: string,
  headers: string[],
  row: (item: T) => string[],
): void {
  if (json) printJson(items);
  else if (items.length === 0) note(empty);
  else printTable(headers, items.map(row));
}

export function printJson(value: unknown): void {
  cliIo().stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export const note = (msg: string) => cliIo().stderr.write(`${msg}\n`);
