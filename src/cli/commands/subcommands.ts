// Every command is a tree of leaves declared as data (help, options, operands): arguments are parsed
// before anything is opened, and a command's help is its leaves' together, so nothing is written twice.
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import type { Core } from '../core.ts';
import { printListing, UsageError } from '../io.ts';

type Values<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ options: O; strict: true; allowPositionals: true }>
>['values'];

/** A command that runs: its help, what node's parseArgs is told, and what runs with the result. */
export interface Leaf<O extends ParseArgsOptionsConfig = ParseArgsOptionsConfig> {
  /** Its usage line(s) and what it does; the first line, up to its description, is its usage. */
  help: string;
  options?: O;
  /** Operands: none when absent; exactly `n` (none empty) otherwise; 'any' leaves them to `run`. */
  operands?: number | 'any';
  /** The store may be created where nothing configured one (init); others refuse to. */
  creates?: boolean;
  /** Refuses bad option values (a UsageError) before anything is opened. */
  check?(values: Values<O>): void;
  /** The exit code; undefined: a long-running command (serve, sandbox) owns the process from here on. */
  run(values: Values<O>, operands: string[], open: Open): Promise<number | undefined>;
}

/** Opens the store and services; `creates`: also where nothing configured a store. */
type Open = (creates?: boolean) => Promise<Core>;

/** A command with subcommands of its own (`ls`, `rm` and `keys` also answer for `list`, `remove`, `key`). */
export interface Group {
  subcommands: Record<string, Node>;
}

export type Node = Leaf | Group;

const ALIASES: Record<string, string> = { ls: 'list', rm: 'remove', keys: 'key' };

/** Declares a leaf, with its option values typed from its options. */
export function command<const O extends ParseArgsOptionsConfig = Record<never, never>>(spec: Leaf<O>): Leaf {
  return spec as unknown as Leaf;
}

/** Declares a leaf that runs on the opened store and services (Core), closed whatever happens. */
export function leaf<const O extends ParseArgsOptionsConfig = Record<never, never>>(
  spec: Omit<Leaf<O>, 'run'> & { run(core: Core, values: Values<O>, operands: string[]): Promise<number> },
): Leaf {
  return {
    ...spec,
    async run(values, operands, open) {
      const core = await open(spec.creates);
      try {
        return await spec.run(core, values as Values<O>, operands);
      } finally {
        await core.close();
      }
    },
  };
}

/** A leaf that lists what `load` finds (see printListing), with a --json option. */
export function listing<T, const O extends ParseArgsOptionsConfig = Record<never, never>>(
  spec: Pick<Leaf<O>, 'help' | 'options' | 'check'> & {
    load(core: Core, values: Values<O>): Promise<readonly T[]>;
    empty: string;
    headers: string[];
    row(item: T): string[];
  },
): Leaf {
  const options: ParseArgsOptionsConfig = { ...spec.options, json: { type: 'boolean', default: false } };
  return leaf({
    help: spec.help,
    options,
    check: spec.check as Leaf['check'],
    async run(core, values) {
      const items = await spec.load(core, values as Values<O>);
      printListing(items, values.json === true, spec.empty, spec.headers, spec.row);
      return 0;
    },
  });
}

/** The deepest node the leading words of `args` name from `root`, its path, and the arguments after. */
export function find(root: Group, args: string[]): { node: Node; path: string[]; rest: string[] } {
  let node: Node = root;
  const path: string[] = [];
  for (const given of args) {
    const name = ALIASES[given] ?? given;
    if (!('subcommands' in node) || !Object.hasOwn(node.subcommands, name)) break;
    node = node.subcommands[name]!;
    path.push(name);
  }
  return { node, path, rest: args.slice(path.length) };
}

/** A node's help: a leaf's own, or its subcommands' in order (a help shared by several once). */
export function helpOf(node: Node): string {
  if (!('subcommands' in node)) return node.help;
  return [...new Set(Object.values(node.subcommands).map(helpOf))].join('\n');
}

/** Runs the leaf `path` names with `args`; a wrong number of operands is a usage error. */
export function runNode(node: Node, path: string[], args: string[], open: Open): Promise<number | undefined> {
  if ('subcommands' in node) {
    const [given] = args;
    throw new UsageError(
      given
        ? `unknown subcommand "${path.join(' ')} ${given}"`
        : `${path.join(' ')} needs a subcommand: ${Object.keys(node.subcommands).join(', ')}`,
    );
  }
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: node.operands !== undefined,
    options: node.options ?? {},
  });
  const want = node.operands;
  if (typeof want === 'number' && (positionals.length !== want || positionals.some((p) => p === '')))
    throw new UsageError(`usage: ${node.help.split('\n')[0]!.split(/\s{2,}/)[0]}`);
  node.check?.(values);
  return node.run(values, positionals, open);
}
