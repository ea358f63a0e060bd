// `npm run image:check`: builds the container image and checks it the way an operator would.
//
//   1. the Dockerfile's base image: pulled, or built locally as a stand-in (scripts/image/base-standin.sh)
//      where Docker Hub cannot be reached;
//   2. `docker build` (the legacy builder: BuildKit would fetch its frontend from Docker Hub);
//   3. one container on SQLite: /readyz, not root, read-only root, the CLI inside, HEALTHCHECK,
//      /metrics guarded, `docker stop` draining an upload;
//   4. two replicas on PostgreSQL + Redis: tokens and revocations cross at once, a replica killed
//      mid-job leaves its job to the other, nothing lost or written twice;
//   5. deploy/nginx.conf on a read-only root, and `docker-compose config` on compose.yaml.
//
// Needs a running Docker engine (Debian: apt-get install docker.io; dockerd as root), the local
// PostgreSQL (DATABASE_URL names an existing database, default postgres://postgres@127.0.0.1:5432/test)
// and redis-server. Every container runs on the host's network, so all traffic stays on loopback.
// Env: CRM_PROXY_IMAGE (tag to build, default crm-proxy:check), IMAGE_CHECK_KEEP=1 (keep the containers),
// IMAGE_CHECK_NO_BUILD=1 (check the image already tagged CRM_PROXY_IMAGE instead of building it).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSalesforceSandbox } from '../sandbox/salesforce/index.ts';
import { dockerfileBase, ensureNodeBase } from './image/base.ts';
import { checkDeployFiles } from './image/deploy-files.ts';
import { docker, dockerOk, dockerStreamed, removeContainers, removeNetworks } from './image/docker.ts';
import { checkReplicas } from './image/replicas.ts';
import type { CheckRun } from './image/service.ts';
import { checkSingle } from './image/single.ts';
import { freshKey, results, seconds, step } from './image/steps.ts';
import { createDatabase, startLocalRedis } from './local-cluster.ts';

const ROOT = resolve(import.meta.dirname, '..');
const IMAGE = process.env['CRM_PROXY_IMAGE'] ?? 'crm-proxy:check';
// The legacy builder works offline; BuildKit pulls its Dockerfile frontend from Docker Hub.
process.env['DOCKER_BUILDKIT'] = '0';

async function buildImage(nodeBase: string): Promise<string> {
  const started = Date.now();
  const code = await dockerStreamed([
    'build',
    '--network',
    'host',
    '--build-arg',
    `NODE_IMAGE=${nodeBase}`,
    '-t',
    IMAGE,
    ROOT,
  ]);
  if (code !== 0) throw new Error(`docker build exited ${code}`);
  const bytes = Number(await dockerOk(['image', 'inspect', '--format', '{{.Size}}', IMAGE]));
  return `${IMAGE}, ${(bytes / 1e6).toFixed(0)} MB, built in ${seconds(Date.now() - started)}`;
}

async function main(): Promise<number> {
  const started = Date.now();
  const engine = await docker(['version', '--format', '{{.Server.Version}}']);
  if (engine.code !== 0) {
    process.stderr.write(`image:check needs a running Docker engine: ${engine.stderr.trim()}\n`);
    return 2;
  }
  const nodeBase = dockerfileBase(ROOT);
  await step(`base image ${nodeBase}`, async () => `${await ensureNodeBase(ROOT, nodeBase)}`, true);
  const builtOk =
    process.env['IMAGE_CHECK_NO_BUILD'] === '1'
      ? await step('image already built (IMAGE_CHECK_NO_BUILD=1)', async () =>
          dockerOk(['image', 'inspect', '--format', '{{.Id}}', IMAGE]),
        )
      : await step('docker build', () => buildImage(nodeBase));
  if (!builtOk) return report(started);

  const dir = await mkdtemp(join(tmpdir(), 'crm-proxy-image-check-'));
  const cleanups: Array<() => Promise<void>> = [];
  const prefix = `crmpc-${randomBytes(3).toString('hex')}`;
  try {
    // Slow enough per record that a 10 000-record job is caught mid-way.
    const sandbox = await startSalesforceSandbox({
      port: 0,
      dailyApiRequests: 100_000_000,
      realism: { perRecordMs: 1 },
    });
    cleanups.push(() => sandbox.close());
    const run: CheckRun = {
      image: IMAGE,
      prefix,
      dir,
      sandbox,
      keys: `k1:${freshKey()}`,
      metricsToken: randomBytes(16).toString('hex'),
    };
    cleanups.push(() => removeVolumes(prefix));
    cleanups.push(() =>
      process.env['IMAGE_CHECK_KEEP'] === '1' ? Promise.resolve() : removeNetworks(prefix),
    );
    cleanups.push(() =>
      process.env['IMAGE_CHECK_KEEP'] === '1' ? Promise.resolve() : removeContainers(prefix),
    );
    await checkSingle(run);
    const databaseUrl = await createDatabase(
      process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
      cleanups,
    );
    const redis = await startLocalRedis(dir);
    cleanups.push(() => redis.stop());
    await checkReplicas(run, { databaseUrl, redisUrl: redis.url });
    await checkDeployFiles(run, ROOT, nodeBase);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
  return report(started);
}

async function removeVolumes(prefix: string): Promise<void> {
  if (process.env['IMAGE_CHECK_KEEP'] === '1') return;
  const names = (await docker(['volume', 'ls', '-q', '--filter', `name=^${prefix}`])).stdout
    .split(/\s+/)
    .filter(Boolean);
  if (names.length > 0) await docker(['volume', 'rm', '-f', ...names]);
}

function report(started: number): number {
  const failed = results.filter((r) => !r.ok);
  process.stdout.write(
    `\nimage check: ${results.length - failed.length} of ${results.length} checks passed in ${seconds(Date.now() - started)}\n`,
  );
  for (const f of failed) process.stdout.write(`  failed: ${f.name}\n`);
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`image check stopped: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
