// Command dispatcher: `crm-proxy <command> …`. Exit codes: 0 done, 1 failed, 2 bad invocation.
import { inspect } from 'node:util';
import { CONNECT_LINK_HELP, connectLinkCommand } from './commands/connect-link.ts';
import { CONNECTIONS_HELP, connectionsCommand } from './commands/connections.ts';
import { DOCTOR_HELP, doctorCommand } from './commands/doctor.ts';
import { INIT_HELP, initCommand } from './commands/init.ts';
import { JOBS_HELP, jobsCommand } from './commands/jobs.ts';
import { OPERATORS_HELP, operatorsCommand } from './commands/operators.ts';
import { REQUESTS_HELP, requestsCommand, usageCommand } from './commands/requests.ts';
import { ROTATE_KEY_HELP, rotateKeyCommand } from './commands/rotate-key.ts';
import { TOKENS_HELP, tokensCommand } from './commands/tokens.ts';
import type { Core } from './core.ts';
import { CommandError, cliIo, note, UsageError } from './io.ts';

type Run = (args: string[], open: () => Promise<Core>) => Promise<number | undefined>;

const CONFIG_HELP = `Configuration is found the way the service finds it: the environment first, then the env file
named by CRM_PROXY_CONFIG, then .env in the working directory (KEY=value lines). The store is
DATABASE_URL, else CRM_PROXY_DATA_DIR (default ./data); every command that opens it prints which,
and a command refuses to create a new empty store where nothing configured one (./bin/crm-proxy.mjs init does).`;

/** The commands, in the order the help lists them. serve and sandbox answer --help themselves. */
const COMMANDS: Record<string, { help?: string; run: Run }> = {
  serve: { run: (args) => delegate('serve', args) },
  sandbox: { run: (args) => delegate('sandbox', args) },
  connections: { help: CONNECTIONS_HELP, run: connectionsCommand },
  'connect-link': { help: CONNECT_LINK_HELP, run: connectLinkCommand },
  tokens: { help: TOKENS_HELP, run: tokensCommand },
  jobs: { help: JOBS_HELP, run: jobsCommand },
  'rotate-key': { help: ROTATE_KEY_HELP, run: rotateKeyCommand },
  operators: { help: OPERATORS_HELP, run: operatorsCommand },
  requests: { help: REQUESTS_HELP, run: requestsCommand },
  usage: { help: REQUESTS_HELP, run: usageCommand },
  init: { help: INIT_HELP, run: (args) => initCommand(args) },
  doctor: { help: DOCTOR_HELP, run: (args) => doctorCommand(args) },
};

const HELP = `crm-proxy: one bearer token for Salesforce and HubSpot records.

Usage: crm-proxy <command> [options]

./bin/crm-proxy.mjs serve [--port N] [--host H]  start the service (with the sandbox CRMs, except with CRM_PROXY_SANDBOX=false or NODE_ENV=production)
./bin/crm-proxy.mjs sandbox salesforce|hubspot|both [--port N]   start sandbox CRMs alone
    (serve --help and sandbox --help say more)
${[...new Set(Object.values(COMMANDS).flatMap((c) => c.help ?? []))].join('\n')}
./bin/crm-proxy.mjs help [COMMAND]     also: crm-proxy COMMAND [SUBCOMMAND] --help

${CONFIG_HELP}
`;

/** serve and sandbox load the service or the emulators only when run; undefined keeps the process running. */
async function delegate(name: 'serve' | 'sandbox', argv: string[]): Promise<number | undefined> {
  const mod = name === 'serve' ? await import('./serve.ts') : await import('./sandbox.ts');
  return mod.run(argv);
}

/**
 * The help of `crm-proxy <command> [words…]`: the usage blocks (a `crm-proxy …` line and its
 * indented lines) that start with the longest run of the words given, e.g. `tokens create`.
 */
export function helpFor(command: string, args: string[]): string | undefined {
  const text = Object.hasOwn(COMMANDS, command) ? COMMANDS[command]?.help : undefined;
  if (text === undefined) return undefined;
  const blocks: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('./bin/crm-proxy.mjs ') || blocks.length === 0) blocks.push(line);
    else blocks[blocks.length - 1] += `\n${line}`;
  }
  const words = [command];
  for (const a of args) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  for (let n = words.length; n >= 1; n--) {
    const prefix = `./bin/crm-proxy.mjs ${words.slice(0, n).join(' ')}`;
    const shown = blocks.filter(
      (b) => b === prefix || b.startsWith(`${prefix} `) || b.startsWith(`${prefix}\n`),
    );
    if (shown.length > 0) return `${shown.join('\n')}\n\n${CONFIG_HELP}\n`;
  }
  return `${text}\n\n${CONFIG_HELP}\n`;
}

export async function main(argv: string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  // The store and its drivers load only for commands that need them, so `help` stays fast.
  const open = async (): Promise<Core> => {
    const { ensureNotAccidental, locateStore } = await import('./location.ts');
    const location = locateStore();
    note(`Store: ${location.where}`);
    await ensureNotAccidental(location);
    const { openCore } = await import('./core.ts');
    return openCore(location.config, { info: note, warn: note });
  };
  try {
    const help = command === undefined ? undefined : helpFor(command, rest);
    if (help !== undefined && (rest.includes('--help') || rest.includes('-h'))) {
      cliIo().stdout.write(help);
      return 0;
    }
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
        cliIo().stdout.write(HELP);
        return command === undefined ? 2 : 0;
      case 'help': {
        const [topic, ...words] = rest;
        if (topic === undefined || topic === '--help' || topic === '-h') {
          cliIo().stdout.write(HELP);
          return 0;
        }
        if (topic === 'serve' || topic === 'sandbox') return await delegate(topic, ['--help']);
        const text = helpFor(topic, words);
        if (text === undefined) throw new UsageError(`unknown command "${topic}"`);
        cliIo().stdout.write(text);
        return 0;
      }
    }
    const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command]?.run : undefined;
    if (run === undefined) throw new UsageError(`unknown command "${command}"`);
    return await run(rest, open);
  } catch (err) {
    return report(err);
  }
}

function report(err: unknown): number {
  // parseArgs reports unknown or malformed options with ERR_PARSE_ARGS_* codes.
  const code = (err as { code?: unknown }).code;
  if (err instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
    note(`error: ${(err as Error).message}\nRun "./bin/crm-proxy.mjs help" for usage.`);
    return 2;
  }
  // The command's own refusals, and bad configuration or keys: the message is the whole story.
  if (err instanceof CommandError || (err instanceof Error && /^(Config|Crypto)Error$/.test(err.name))) {
    note(`error: ${err.message}`);
    return 1;
  }
  // Unexpected: no stack by default (it could carry values), the message is enough to act on.
  note(`error: ${err instanceof Error ? err.message : String(err)}`);
  if (cliIo().env['CRM_PROXY_DEBUG']) cliIo().stderr.write(`${inspect(err)}\n`);
  return 1;
}
