// One crm-proxy container from the image under check, as an operator runs it: production mode, a
// read-only root with a /tmp tmpfs, /data on a volume, its environment from a file (so no secret
// sits on a command line). Host networking keeps all of the check's traffic on loopback.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { freePort } from '../local-cluster.ts';
import { docker, dockerOk } from './docker.ts';
import { call, expect, until } from './steps.ts';

export interface CheckRun {
  image: string;
  /** Every container and volume of this run starts with it. */
  prefix: string;
  dir: string;
  sandbox: SalesforceSandbox;
  /** `kid:base64` encryption key shared by every replica of the run. */
  keys: string;
  metricsToken: string;
}

export interface Service {
  name: string;
  url: string;
  metricsUrl: string;
  /** The CLI inside the container (`docker exec`), stdout trimmed; throws on a non-zero exit. */
  cli(args: string[], input?: string): Promise<string>;
}

/** The environment every container of the run gets; `extra` adds to it or, with '', leaves a variable out. */
export function serviceEnv(run: CheckRun, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    CRM_PROXY_ENCRYPTION_KEYS: run.keys,
    CRM_PROXY_ENCRYPTION_KEY_ID: 'k1',
    CRM_PROXY_METRICS_TOKEN: run.metricsToken,
    // The sandbox's OAuth app refreshes the sandbox connection's access token.
    SALESFORCE_CLIENT_ID: run.sandbox.credentials.clientId,
    SALESFORCE_CLIENT_SECRET: run.sandbox.credentials.clientSecret,
    SALESFORCE_LOGIN_URL: run.sandbox.url,
    // The sandbox CRM answers on plain http on loopback; production refuses that unless told.
    CRM_PROXY_ALLOW_PLAIN_HTTP_CRM: 'true',
    ...extra,
  };
  for (const [key, value] of Object.entries(env)) if (value === '') delete env[key];
  return env;
}

export async function envFile(run: CheckRun, name: string, env: Record<string, string>): Promise<string> {
  const file = join(run.dir, `${name}.env`);
  await writeFile(
    file,
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
    { mode: 0o600 },
  );
  return file;
}

/** Starts a container of the image and waits for its /readyz. */
export async function startService(
  run: CheckRun,
  name: string,
  extra: Record<string, string> = {},
  volume = `${run.prefix}-${name}-data`,
): Promise<Service> {
  const port = await freePort();
  const metricsPort = await freePort();
  const env = serviceEnv(run, { PORT: String(port), CRM_PROXY_METRICS_PORT: String(metricsPort), ...extra });
  const container = `${run.prefix}-${name}`;
  await dockerOk([
    'run',
    '-d',
    '--name',
    container,
    '--network',
    'host',
    '--read-only',
    '--tmpfs',
    '/tmp',
    '-v',
    `${volume}:/data`,
    '--env-file',
    await envFile(run, name, env),
    run.image,
  ]);
  const url = `http://127.0.0.1:${port}`;
  await until(
    `${container}'s /readyz`,
    async () => {
      const running = await docker(['inspect', '--format', '{{.State.Running}}', container]);
      if (running.stdout.trim() === 'false') {
        const logs = await docker(['logs', '--tail', '30', container]);
        throw new Error(`${container} exited: ${logs.stdout}${logs.stderr}`);
      }
      return (await call(`${url}/readyz`, undefined)).status === 200 ? true : undefined;
    },
    120_000,
  );
  return {
    name: container,
    url,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    cli: (args, input) =>
      dockerOk(
        ['exec', ...(input === undefined ? [] : ['-i']), container, 'node', 'bin/crm-proxy.mjs', ...args],
        {
          ...(input === undefined ? {} : { input }),
        },
      ),
  };
}

/** The Salesforce sandbox connected through the CLI inside `service`; returns the connection id. */
export async function connectSandbox(run: CheckRun, service: Service): Promise<string> {
  const out = await service.cli(
    [
      'connections',
      'add',
      '--provider',
      'salesforce',
      '--instance-url',
      run.sandbox.url,
      '--sandbox',
      '--refresh-token',
      '-',
      '--label',
      'image check',
      '--json',
    ],
    run.sandbox.credentials.refreshToken,
  );
  const connection = JSON.parse(out) as { id?: string };
  expect(typeof connection.id === 'string', `connections add printed no id: ${out}`);
  return connection.id;
}

/** An API token for `connectionId`, made by the CLI inside `service`. */
export async function createToken(
  service: Service,
  connectionId: string,
): Promise<{ token: string; id: string }> {
  const out = await service.cli(['tokens', 'create', '--connection', connectionId, '--json']);
  const made = JSON.parse(out) as { token: string; record: { id: string } };
  return { token: made.token, id: made.record.id };
}
