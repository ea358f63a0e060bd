// Command dispatcher: `crm-proxy <command> …`. Exit codes: 0 done, 1 failed, 2 bad invocation.
import { inspect } from 'node:util';
import { connectLink } from './commands/connect-link.ts';
import { connections } from './commands/connections.ts';
import { doctor } from './commands/doctor.ts';
import { init } from './commands/init.ts';
import { jobs } from './commands/jobs.ts';
import { operators } from './commands/operators.ts';
import { requests, usage } from './commands/requests.ts';
import { rotateKey } from './commands/rotate-key.ts';
import { command, find, type Group, helpOf, runNode } from './commands/subcommands.ts';
import { tokens } from './commands/tokens.ts';
import type { Core } from './core.ts';
import { CommandError, cliIo, note, UsageError } from './io.ts';

const CONFIG_HELP = `Configuration is found the way the service finds it: the environment first, then the env file
named by CRM_PROXY_CONFIG, then .env in the working directory (KEY=value lines). The store is
DATABASE_URL, else CRM_PROXY_DATA_DIR (default ./data); every command that opens it prints which,
and a command refuses to create a new empty store where nothing configured one (./bin/crm-proxy.mjs init does).`;

// serve and sandbox load the service or the emulators only when run; undefined keeps the process running.
const serve = command({
  help: `./bin/crm-proxy.mjs serve [--port N] [--host H]
    Starts the service. With CRM_PROXY_SANDBOX on (the default outside production, refused with
    NODE_ENV=production) both sandbox CRMs run in-process on a thread of their own (ports PORT+1 and
    PORT+2), each with a connection and an API token, written to <data dir>/sandbox.json. Both
    sandboxes keep their state (records, schema, OAuth grants) in the data directory, so connections
    made in the console or through a connect link work after a restart;
    CRM_PROXY_SANDBOX_PERSIST=false starts them fresh.
    The log is JSON lines on stdout, with this start-up summary on stderr; in a terminal the log goes
    to <data dir>/crm-proxy.log instead (LOG_FILE=<path> or LOG_FILE=- to choose).`,
  options: { port: { type: 'string' }, host: { type: 'string' } },
  run: async (values) => (await import('./serve.ts')).run(values),
});

const sandbox = command({
  help: `./bin/crm-proxy.mjs sandbox salesforce|hubspot|both [--port N] [--host H] [--persist]
    [--address-picklists on|off]
    Starts sandbox CRMs alone. --port is the Salesforce port (HubSpot: --port, or port+1 with "both").
    --address-picklists off: the Salesforce org without State and Country/Territory Picklists (on by default).
    --persist (or CRM_PROXY_SANDBOX_PERSIST=true) keeps each sandbox's state (records, schema, OAuth
    grants) in the data directory across restarts. Alone, a sandbox starts fresh unless asked.`,
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    persist: { type: 'boolean' },
    'address-picklists': { type: 'string' },
  },
  operands: 'any',
  run: async (values, operands) => (await import('./sandbox.ts')).run(values, operands),
});

/** The commands, in the order the help lists them. */
const COMMANDS: Group = {
  subcommands: {
    serve,
    sandbox,
    connections,
    'connect-link': connectLink,
    tokens,
    jobs,
    'rotate-key': rotateKey,
    operators,
    requests,
    usage,
    init,
    doctor,
  },
};

const HELP = `crm-proxy: one bearer token for Salesforce and HubSpot records.

Usage: crm-proxy <command> [options]

${helpOf(COMMANDS)}
./bin/crm-proxy.mjs help [COMMAND]     also: crm-proxy COMMAND [SUBCOMMAND] --help

${CONFIG_HELP}
`;

export async function main(argv: string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  try {
    // `help COMMAND [SUBCOMMAND]` is `COMMAND [SUBCOMMAND] --help`.
    if (command === 'help' && rest[0] !== undefined && rest[0] !== '--help' && rest[0] !== '-h')
      return main([...rest, '--help']);
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      cliIo().stdout.write(HELP);
      return command === undefined ? 2 : 0;
    }
    const { node, path, rest: args } = find(COMMANDS, argv);
    if (path.length === 0) throw new UsageError(`unknown command "${command}"`);
    if (args.includes('--help') || args.includes('-h')) {
      cliIo().stdout.write(`${helpOf(node)}\n\n${CONFIG_HELP}\n`);
      return 0;
    }
    return await runNode(node, path, args, open);
  } catch (err) {
    return report(err);
  }
}

/** The store and its drivers load only for commands that need them, so `help` stays fast. */
async function open(creates = false): Promise<Core> {
  const { ensureNotAccidental, locateStore } = await import('./location.ts');
  const location = locateStore();
  note(`Store: ${location.where}`);
  if (!creates) await ensureNotAccidental(location);
  const { openCore } = await import('./core.ts');
  return openCore(location, { info: note, warn: note });
}

function report(err: unknown): number {
  // parseArgs reports unknown or malformed options with ERR_PARSE_ARGS_* codes.
  const code = err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined;
  if (err instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
    note(`error: ${(err as Error).message}\nRun "./bin/crm-proxy.mjs help" for usage.`);
    return 2;
  }
  note(`error: ${err instanceof Error ? err.message : String(err)}`);
  // The stack of an unexpected error only on request: it could carry values.
  const known =
    err instanceof CommandError || (err instanceof Error && /^(Config|Crypto)Error$/.test(err.name));
  if (!known && cliIo().env['CRM_PROXY_DEBUG']) cliIo().stderr.write(`${inspect(err)}\n`);
  return 1;
}
