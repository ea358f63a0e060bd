import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/index.ts';
import { type AppContext, createLogger } from '../context.ts';
import { closeLogDestination } from '../lib/log-destination.ts';
import { writePrivateFile } from '../lib/private-dir.ts';
import { onShutdownSignal, startService } from '../main.ts';
import { cliIo } from './io.ts';
import { locateStore } from './location.ts';
import type { SandboxHandle, ServeSandboxes } from './sandbox-bootstrap.ts';

/** The log file in the data directory when `serve` runs in a terminal and LOG_FILE is unset. */
const LOG_FILE_NAME = 'crm-proxy.log';

/** Loaded only when the sandboxes run: the emulators and their SOQL parser are ~25 MiB resident. */
type Bootstrap = typeof import('./sandbox-bootstrap.ts');

/** The start lines about the connect flow: the redirect URL to register, and what each CRM still needs. */
export function connectBanner(connect: AppContext['connect']): string[] {
  return [
    `  OAuth redirect URL (paste it into the CRM app's settings): ${connect.redirectUri()}`,
    ...connect.providers().map((p) => {
      const real =
        p.missing.length === 0 ? 'real accounts ready' : `real accounts need ${p.missing.join(' and ')}`;
      return `  Connect ${p.displayName} in a browser: ${real}${p.sandbox ? '; the sandbox is ready' : ''}`;
    }),
  ];
}

/** `crm-proxy serve` (options as main.ts declares them): runs until SIGTERM/SIGINT. */
export async function run(values: { port?: string; host?: string }): Promise<undefined> {
  const location = locateStore({
    ...(values.port === undefined ? {} : { PORT: values.port }),
    ...(values.host === undefined ? {} : { HOST: values.host }),
  });
  const { config, logger, say, release } = startupOutput(location.config);
  say(`Store: ${location.where}`);

  const bootstrap: Bootstrap | undefined = config.sandbox
    ? await import('./sandbox-bootstrap.ts')
    : undefined;
  const sandboxes = await bootstrap?.startServeSandboxes(config, location.launcher, (msg) =>
    logger.error(msg),
  );
  const service = await startService(config, {
    logger,
    sandboxes: sandboxes && bootstrap?.contextSandboxes(sandboxes),
  }).catch(async (err: unknown) => {
    release(false);
    await sandboxes?.close();
    throw err;
  });

  onShutdownSignal(
    async () => {
      await service.close();
      await sandboxes?.close();
      // Log lines a stalled stdout reader has not taken get a moment, then are dropped.
      await closeLogDestination(logger, 2000);
    },
    (msg) => logger.info(msg),
  );

  // On a wildcard address the service is reachable on every interface, not only on loopback.
  const wildcard = service.listening.startsWith('0.0.0.0:') || service.listening.startsWith('[::]:');
  say(
    wildcard
      ? `crm-proxy listening on ${service.listening}, all interfaces (this machine: ${service.baseUrl}; region ${config.region})`
      : `crm-proxy listening on ${service.baseUrl} (region ${config.region})`,
  );
  const publicUrl = config.publicUrls[config.region] ?? service.baseUrl;
  say(`  Console: ${publicUrl}/console   start here: ${publicUrl}/`);
  say(`  API document: ${service.baseUrl}/openapi.json   docs: ${service.baseUrl}/docs`);
  if (config.logFile !== undefined)
    say(`  Log (JSON lines): ${config.logFile}   LOG_FILE=- puts it on stdout`);
  for (const line of connectBanner(service.ctx.connect)) say(line);
  for (const line of await setupBanner(service.ctx, config, publicUrl)) say(line);
  if (bootstrap !== undefined && sandboxes !== undefined)
    await announceSandboxes(bootstrap, service, sandboxes, config.dataDir, say).catch((err: unknown) => {
      release(false);
      throw err;
    });
  release(true);
  return undefined;
}

/**
 * In a terminal the log goes to a file; elsewhere it stays on stdout for collectors and the summary
 * goes to stderr. Start-up log lines are held until `release`, then said in plain words.
 */
function startupOutput(found: Config) {
  const io = cliIo();
  const terminal = (io.stdout as { isTTY?: boolean }).isTTY === true;
  const chosen = found.logFile ?? (terminal ? join(found.dataDir, LOG_FILE_NAME) : undefined);
  // Resolved once: a file's path, or undefined for stdout (`-`).
  const logFile = chosen === '-' ? undefined : chosen;
  const config: Config = { ...found, logFile };
  const logOnStdout = logFile === undefined;
  const out = logOnStdout ? io.stderr : io.stdout;
  const held: string[] = [];
  let holding = true;
  const logger = createLogger(config, (line) => {
    if (!holding) return line;
    held.push(line);
    return logOnStdout ? '' : line;
  });
  // A reader of stdout that went away (`serve | head`) must not stop the service: EPIPE is ignored.
  process.stdout.on('error', () => {});
  const say = (msg: string) => out.write(`${msg}\n`);
  /** Ends the holding: the held lines in plain words (or, after a failed start, as they were). */
  const release = (plain: boolean) => {
    holding = false;
    for (const line of held.splice(0)) {
      if (!plain) {
        if (logOnStdout) io.stdout.write(line);
        continue;
      }
      const entry = startupNote(line);
      if (entry !== null) say(entry);
    }
  };
  return { config, logger, say, release };
}

/** A held start-up log line in plain words; null for the listening line the banner already said. */
export function startupNote(line: string): string | null {
  try {
    const entry = JSON.parse(line) as { level?: number; msg?: string };
    if (typeof entry.msg !== 'string' || entry.msg.startsWith('Server listening at ')) return null;
    const level = (entry.level ?? 30) >= 50 ? 'error' : (entry.level ?? 30) >= 40 ? 'warning' : 'note';
    return `  ${level}: ${entry.msg}`;
  } catch {
    return line.trimEnd();
  }
}

const SETUP_CODE_FILE = 'setup-code';

/**
 * While no operator exists, a one-time code for the console's setup page: printed in sandbox mode,
 * else only written to an owner-only file (never to the output or the log).
 */
export async function setupBanner(
  ctx: AppContext,
  config: Pick<Config, 'sandbox' | 'dataDir'>,
  publicUrl: string,
): Promise<string[]> {
  const file = join(config.dataDir, SETUP_CODE_FILE);
  const issued = await ctx.setup.issue();
  if (issued === null) {
    rmSync(file, { force: true });
    return [];
  }
  const until = `${issued.expiresAt.slice(0, 16).replace('T', ' ')} UTC`;
  const cli = './bin/crm-proxy.mjs operators create --email you@example.com';
  if (config.sandbox) {
    return [
      `  No operator yet: create the first one at ${publicUrl}/console/setup with`,
      `  Setup code: ${issued.code}   (works once, until ${until}; or: ${cli})`,
    ];
  }
  writePrivateFile(
    file,
    `${issued.code}\n# The one-time code of ${publicUrl}/console/setup, good until ${until}, while no operator exists.\n`,
  );
  return [
    `  No operator yet: create the first one at ${publicUrl}/console/setup with the one-time setup code`,
    `  in ${file} (owner-only; works once, until ${until}; or: ${cli})`,
  ];
}

/** The sandbox connections made sure of, their tokens written to the data folder and printed. */
async function announceSandboxes(
  { readSandboxFile, ensureSandboxConnections, writeSandboxFile }: Bootstrap,
  service: Awaited<ReturnType<typeof startService>>,
  sandboxes: ServeSandboxes,
  dataDir: string,
  say: (msg: string) => void,
): Promise<void> {
  const previous = readSandboxFile(dataDir);
  const { tokens } = await ensureSandboxConnections(service.ctx, sandboxes, previous);
  const entry = (s: SandboxHandle) => ({ url: s.url, access_token: s.credentials.accessToken });
  const file = writeSandboxFile(dataDir, {
    base_url: service.baseUrl,
    tokens,
    sandboxes: { salesforce: entry(sandboxes.salesforce), hubspot: entry(sandboxes.hubspot) },
  });
  say(`  Salesforce sandbox: ${sandboxes.salesforce.url}`);
  say(`  HubSpot sandbox:    ${sandboxes.hubspot.url}`);
  say(`  API token (Salesforce sandbox): ${tokens.salesforce}`);
  say(`  API token (HubSpot sandbox):    ${tokens.hubspot}`);
  say(`  (also in ${file})`);
  say('');
  say('Try:');
  say(
    `  curl -s -X POST ${service.baseUrl}/v1/describe -H "Authorization: Bearer ${tokens.salesforce}" | head -c 400`,
  );
}
