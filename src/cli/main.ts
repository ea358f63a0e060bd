// Command dispatcher: `crm-proxy <command> …`. Exit codes: 0 done, 1 failed, 2 bad invocation.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { ConfigError, loadConfig } from '../config/index.ts';
import { CryptoError } from '../crypto/envelope.ts';
import { CONNECT_LINK_HELP, connectLinkCommand } from './commands/connect-link.ts';
import { CONNECTIONS_HELP, connectionsCommand } from './commands/connections.ts';
import { JOBS_HELP, jobsCommand } from './commands/jobs.ts';
import { OPERATORS_HELP, operatorsCommand } from './commands/operators.ts';
import { REQUESTS_HELP, requestsCommand, usageCommand } from './commands/requests.ts';
import { ROTATE_KEY_HELP, rotateKeyCommand } from './commands/rotate-key.ts';
import { TOKENS_HELP, tokensCommand } from './commands/tokens.ts';
import type { Core } from './core.ts';
import { CommandError, note, UsageError } from './io.ts';
import { cliIo } from './process-io.ts';

const HELP = `crm-proxy: one bearer token for Salesforce and HubSpot records.

Usage: crm-proxy <command> [options]

crm-proxy serve [--port N] [--host H]  start the service (with the sandbox CRMs, except with CRM_PROXY_SANDBOX=false or NODE_ENV=production)
crm-proxy sandbox salesforce|hubspot|both [--port N]   start sandbox CRMs alone
    (serve --help and sandbox --help say more)
${CONNECTIONS_HELP}
${CONNECT_LINK_HELP}
${TOKENS_HELP}
${JOBS_HELP}
${ROTATE_KEY_HELP}
${OPERATORS_HELP}
${REQUESTS_HELP}
crm-proxy help

Configuration comes from the environment (CRM_PROXY_DATA_DIR, DATABASE_URL, CRM_PROXY_REGION,
CRM_PROXY_ENCRYPTION_KEYS, CRM_PROXY_ENCRYPTION_KEY_ID, …): run the CLI with the service's environment.
`;

/** Signature of src/cli/serve.ts and src/cli/sandbox.ts: undefined keeps the process running. */
type Runner = (argv: string[]) => Promise<number | undefined>;

async function delegate(name: 'serve' | 'sandbox', argv: string[]): Promise<number | undefined> {
  // `.ts` from the sources, `.js` from the compiled build (dist/).
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const file = fileURLToPath(new URL(`./${name}.${ext}`, import.meta.url));
  if (!existsSync(file)) {
    note(`The "${name}" command is not available in this build (src/cli/${name}.ts is missing).`);
    return 1;
  }
  const mod = (await import(file)) as { run?: Runner };
  if (typeof mod.run !== 'function') {
    note(`src/cli/${name}.ts does not export run(argv).`);
    return 1;
  }
  return mod.run(argv);
}

export async function main(argv: string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  // The store and its drivers load only for commands that need them, so `help` stays fast.
  const open = async (): Promise<Core> => {
    const config = loadConfig(cliIo().env);
    const { openCore } = await import('./core.ts');
    return openCore(config, { info: note, warn: note });
  };
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        cliIo().stdout.write(HELP);
        return command === undefined ? 2 : 0;
      case 'serve':
      case 'sandbox':
        return await delegate(command, rest);
      case 'connections':
        return await connectionsCommand(rest, open);
      case 'connect-link':
        return await connectLinkCommand(rest, open);
      case 'tokens':
        return await tokensCommand(rest, open);
      case 'jobs':
        return await jobsCommand(rest, open);
      case 'rotate-key':
        return await rotateKeyCommand(rest, open);
      case 'operators':
        return await operatorsCommand(rest, open);
      case 'requests':
        return await requestsCommand(rest, open);
      case 'usage':
        return await usageCommand(rest, open);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    return report(err);
  }
}

function report(err: unknown): number {
  // parseArgs reports unknown or malformed options with ERR_PARSE_ARGS_* codes.
  const code = (err as { code?: unknown }).code;
  if (err instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
    note(`error: ${(err as Error).message}\nRun "crm-proxy help" for usage.`);
    return 2;
  }
  if (err instanceof CommandError || err instanceof ConfigError || err instanceof CryptoError) {
    note(`error: ${err.message}`);
    return 1;
  }
  // Unexpected: no stack by default (it could carry values), the message is enough to act on.
  note(`error: ${err instanceof Error ? err.message : String(err)}`);
  if (cliIo().env['CRM_PROXY_DEBUG']) cliIo().stderr.write(`${inspect(err)}\n`);
  return 1;
}
