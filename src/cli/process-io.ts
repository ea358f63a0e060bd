// The environment and standard streams the CLI commands use: the process's own, or, inside
// `withCliIo`, the ones given (tests run commands in-process this way, several in one process).
import { AsyncLocalStorage } from 'node:async_hooks';
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

// Getters: process.stdin is created on first access, which only a command reading stdin should do.
const processIo: CliIo = {
  get env() {
    return process.env;
  },
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
  get cwd() {
    return process.cwd();
  },
};

export function cliIo(): CliIo {
  return scoped.getStore() ?? processIo;
}

/** Runs `fn` (and everything it awaits) with `io` in place of the process's environment and streams. */
export function withCliIo<T>(io: CliIo, fn: () => Promise<T>): Promise<T> {
  return scoped.run(io, fn);
}
