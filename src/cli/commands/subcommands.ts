// The shape every command with subcommands shares: `crm-proxy <command> <subcommand> [options]`,
// each subcommand run on the opened store and services (Core), closed whatever happens.
import { parseArgs } from 'node:util';
import type { Core } from '../core.ts';
import { UsageError } from '../io.ts';

export type Subcommand = (core: Core, args: string[]) => Promise<number>;
export type Command = (args: string[], open: () => Promise<Core>) => Promise<number>;

/** Runs `fn` on a Core opened for it, and closes it. */
export async function withCore(
  open: () => Promise<Core>,
  fn: (core: Core) => Promise<number>,
): Promise<number> {
  const core = await open();
  try {
    return await fn(core);
  } finally {
    await core.close();
  }
}

/**
 * The command `command`: its first argument names the subcommand (`ls` and `rm` also answer for
 * `list` and `remove`); an unknown or missing one is a usage error that lists them.
 */
export function subcommands(
  command: string,
  table: Record<string, Subcommand>,
  /** Subcommands with subcommands of their own: they open the Core themselves. */
  nested: Record<string, Command> = {},
): Command {
  const aliases: Record<string, string> = { ls: 'list', rm: 'remove', keys: 'key' };
  return (args, open) => {
    const [given, ...rest] = args;
    const name = given === undefined ? '' : (aliases[given] ?? given);
    const inner = Object.hasOwn(nested, name) ? nested[name] : undefined;
    if (inner !== undefined) return inner(rest, open);
    const run = Object.hasOwn(table, name) ? table[name] : undefined;
    if (run === undefined)
      throw new UsageError(
        given
          ? `unknown subcommand "${command} ${given}"`
          : `${command} needs a subcommand: ${[...Object.keys(table), ...Object.keys(nested)].join(', ')}`,
      );
    return withCore(open, (core) => run(core, rest));
  };
}

/** `--json`, the one option of a listing: true when given. */
export function jsonFlag(args: string[]): boolean {
  return parseArgs({ args, strict: true, options: { json: { type: 'boolean', default: false } } }).values
    .json;
}
