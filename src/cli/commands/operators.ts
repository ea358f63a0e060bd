import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { OperatorError } from '../../admin/operators.ts';
import type { Core } from '../core.ts';
import { CommandError, note, printJson, printListing, UsageError } from '../io.ts';
import { cliIo } from '../process-io.ts';
import { withCore } from './connections.ts';

export const OPERATORS_HELP = `./bin/crm-proxy.mjs operators create --email EMAIL   the password is read from stdin (or asked for on a terminal)
./bin/crm-proxy.mjs operators list [--json]
./bin/crm-proxy.mjs operators key create --email EMAIL [--label L] [--json]   an operator API key for /v1/admin, printed once
./bin/crm-proxy.mjs operators key list [--json]
./bin/crm-proxy.mjs operators key revoke ID`;

export async function operatorsCommand(args: string[], open: () => Promise<Core>): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create':
      return withCore(open, (core) => create(core, rest));
    case 'list':
    case 'ls':
      return withCore(open, (core) => list(core, rest));
    case 'key':
    case 'keys':
      return keyCommand(rest, open);
    default:
      throw new UsageError(
        sub ? `unknown subcommand "operators ${sub}"` : 'operators needs a subcommand: create, list, key',
      );
  }
}

/** The password: one line of stdin, or asked for without echo on a terminal. */
async function readPassword(): Promise<string> {
  const io = cliIo();
  const stdin = io.stdin as NodeJS.ReadableStream & { isTTY?: boolean };
  const muted = { muted: false };
  const output = {
    write(chunk: string) {
      if (!muted.muted) io.stderr.write(chunk);
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const rl = createInterface({
    input: stdin,
    output: stdin.isTTY === true ? output : undefined,
    terminal: stdin.isTTY === true,
  });
  try {
    if (stdin.isTTY === true) {
      io.stderr.write('Password: ');
      muted.muted = true;
    }
    for await (const line of rl) return line.replace(/\r$/, '');
    return '';
  } finally {
    muted.muted = false;
    if (stdin.isTTY === true) io.stderr.write('\n');
    rl.close();
  }
}

async function create(core: Core, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { email: { type: 'string' } } });
  if (!values.email) throw new UsageError('--email EMAIL is required');
  const password = await readPassword();
  try {
    const operator = await core.operators.create(values.email, password);
    note(
      `Created operator ${operator.email} (${operator.id}). Sign in at ${core.address.baseUrl}/console/sign-in`,
    );
    return 0;
  } catch (err) {
    if (err instanceof OperatorError) throw new CommandError(err.message);
    throw err;
  }
}

async function list(core: Core, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { json: { type: 'boolean', default: false } },
  });
  const operators = await core.operators.list();
  printListing(
    operators,
    values.json,
    'No operators. Create one with: ./bin/crm-proxy.mjs operators create --email you@example.com',
    ['ID', 'EMAIL', 'CREATED', 'LAST SIGN-IN'],
    (o) => [o.id, o.email, o.createdAt, o.lastSignInAt ?? 'never'],
  );
  return 0;
}

async function keyCommand(args: string[], open: () => Promise<Core>): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create':
      return withCore(open, async (core) => {
        const { values } = parseArgs({
          args: rest,
          strict: true,
          options: {
            email: { type: 'string' },
            label: { type: 'string' },
            json: { type: 'boolean', default: false },
          },
        });
        if (!values.email) throw new UsageError('--email EMAIL is required (the operator the key acts for)');
        const operator = await core.operators.find(values.email);
        if (!operator)
          throw new CommandError(
            `No operator ${values.email}. Create one with: ./bin/crm-proxy.mjs operators create --email …`,
          );
        const { key, record } = await core.operators.createKey(operator, values.label ?? null);
        if (values.json) {
          printJson({ key, record });
          return 0;
        }
        cliIo().stdout.write(`${key}\n`);
        note(
          `Created operator key ${record.id} (${record.prefix}…) for ${operator.email}. It is shown only this once.`,
        );
        return 0;
      });
    case 'list':
    case 'ls':
      return withCore(open, async (core) => {
        const { values } = parseArgs({
          args: rest,
          strict: true,
          options: { json: { type: 'boolean', default: false } },
        });
        const keys = await core.operators.listKeys();
        printListing(
          keys,
          values.json,
          'No operator keys.',
          ['ID', 'PREFIX', 'OPERATOR', 'LABEL', 'CREATED', 'LAST USED', 'REVOKED'],
          (k) => [
            k.id,
            `${k.prefix}…`,
            k.operatorId,
            k.label ?? '',
            k.createdAt,
            k.lastUsedAt ?? 'never',
            k.revokedAt ?? '',
          ],
        );
        return 0;
      });
    case 'revoke':
      return withCore(open, async (core) => {
        const { positionals } = parseArgs({ args: rest, strict: true, allowPositionals: true, options: {} });
        const [id, extra] = positionals;
        if (!id || extra) throw new UsageError('usage: ./bin/crm-proxy.mjs operators key revoke ID');
        if (!(await core.operators.revokeKey(id))) throw new CommandError(`No active operator key ${id}.`);
        note(`Revoked operator key ${id}.`);
        return 0;
      });
    default:
      throw new UsageError(
        sub
          ? `unknown subcommand "operators key ${sub}"`
          : 'operators key needs a subcommand: create, list, revoke',
      );
  }
}
