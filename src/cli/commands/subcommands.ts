// The shape every command with subcommands shares: `crm-proxy <command> <subcommand> [options]`,
// each subcommand declared as data (its options, its operands) and run on the opened store and
// services (Core), closed whatever happens.
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import type { Core } from '../core.ts';
import { printListing, UsageError } from '../io.ts';

export type Command = (args: string[], open: () => Promise<Core>) => Promise<number>;

type Values<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ options: O; strict: true; allowPositionals: true }>
>['values'];

/** A subcommand: what node's parseArgs is told, and what runs with the parsed result. */
export interface Leaf<O extends ParseArgsOptionsConfig = ParseArgsOptionsConfig> {
  options?: O;
  /**
   * Operands: none when absent; `n` exactly (none empty) with `usage` as the error otherwise;
   * 'any' leaves them to `run`.
   */
  operands?: { count: number; usage: string } | 'any';
  run(core: Core, values: Values<O>, operands: string[]): Promise<number>;
}

/** Declares a subcommand, with its option values typed from its options. */
export function leaf<const O extends ParseArgsOptionsConfig = Record<never, never>>(spec: Leaf<O>): Leaf {
  return spec as unknown as Leaf;
}

/** A subcommand that lists: the items as JSON with --json, `empty` when there are none, else a table. */
export function listing<T>(
  load: (core: Core) => Promise<readonly T[]>,
  empty: string,
  headers: string[],
  row: (item: T) => string[],
): Leaf {
  return leaf({
    options: { json: { type: 'boolean', default: false } },
    async run(core, values) {
      printListing(await load(core), values.json, empty, headers, row);
      return 0;
    },
  });
}

/**
 * A command or subcommand without subcommands of its own: its arguments are parsed (a wrong number
 * of operands is a usage error) before the store is opened, and the Core is closed whatever happens.
 */
export function single(spec: Leaf): Command {
  return async (args, open) => {
    const { values, positionals } = parseArgs({
      args,
      strict: true,
      allowPositionals: spec.operands !== undefined,
      options: spec.options ?? {},
    });
    const want = spec.operands;
    if (typeof want === 'object' && (positionals.length !== want.count || positionals.some((p) => p === '')))
      throw new UsageError(want.usage);
    const core = await open();
    try {
      return await spec.run(core, values, positionals);
    } finally {
      await core.close();
    }
  };
}

/**
 * The command `command`: its first argument names the subcommand (`ls` and `rm` also answer for
 * `list` and `remove`); an unknown or missing one is a usage error that lists them. A subcommand
 * given as a Command has subcommands of its own.
 */
export function subcommands(command: string, table: Record<string, Leaf | Command>): Command {
  const aliases: Record<string, string> = { ls: 'list', rm: 'remove', keys: 'key' };
  return (args, open) => {
    const [given, ...rest] = args;
    const name = given === undefined ? '' : (aliases[given] ?? given);
    const sub = Object.hasOwn(table, name) ? table[name] : undefined;
    if (sub === undefined)
      throw new UsageError(
        given
          ? `unknown subcommand "${command} ${given}"`
          : `${command} needs a subcommand: ${Object.keys(table).join(', ')}`,
      );
    return (typeof sub === 'function' ? sub : single(sub))(rest, open);
  };
}

/** `--json`, the one option of a listing: true when given. */
export function jsonFlag(args: string[]): boolean {
  return parseArgs({ args, strict: true, options: { json: { type: 'boolean', default: false } } }).values
    .json;
}
