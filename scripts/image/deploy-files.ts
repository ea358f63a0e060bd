// The files a deployment takes from the repository: deploy/nginx.conf runs on a read-only root,
// and compose.yaml with an .env made from deploy/env.example passes `docker-compose config`.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureNginx } from './base.ts';
import { docker, dockerOk } from './docker.ts';
import { type CheckRun, envFile, serviceEnv } from './service.ts';
import { expect, step, until } from './steps.ts';

/** compose.yaml's nginx image. */
function composeNginxImage(root: string): string {
  return (
    /^\s*image:\s*(nginx:\S+)\s*$/m.exec(readFileSync(join(root, 'compose.yaml'), 'utf8'))?.[1] ??
    'nginx:1.27-alpine'
  );
}

export async function checkDeployFiles(run: CheckRun, root: string, nodeBase: string): Promise<void> {
  await step("deploy/nginx.conf serves on a read-only root (compose's read_only: true)", async () => {
    const image = await ensureNginx(composeNginxImage(root), nodeBase);
    return nginxReadOnly(run, root, image);
  });
  await step('docker-compose config accepts compose.yaml with an .env from deploy/env.example', () =>
    composeConfig(run, root),
  );
}

async function nginxReadOnly(run: CheckRun, root: string, image: string): Promise<string> {
  // compose's shape on a network of its own with no way out (--internal): a replica answering to
  // the name `crm-proxy`, and nginx with the repository's nginx.conf on a read-only root.
  const network = `${run.prefix}-net`;
  await dockerOk(['network', 'create', '--internal', network]);
  const upstream = `${run.prefix}-upstream`;
  await dockerOk([
    'run',
    '-d',
    '--name',
    upstream,
    '--network',
    network,
    '--network-alias',
    'crm-proxy',
    '--read-only',
    '--tmpfs',
    '/tmp',
    '--env-file',
    await envFile(run, 'upstream', serviceEnv(run)),
    run.image,
  ]);
  const name = `${run.prefix}-nginx`;
  await dockerOk([
    'run',
    '-d',
    '--name',
    name,
    '--network',
    network,
    '--read-only',
    '--tmpfs',
    '/tmp',
    '-v',
    `${join(root, 'deploy/nginx.conf')}:/etc/nginx/nginx.conf:ro`,
    image,
  ]);
  const probe =
    'if command -v wget >/dev/null; then wget -S -q -O - http://127.0.0.1:8080/readyz 2>&1; ' +
    'else exec 3<>/dev/tcp/127.0.0.1/8080 && printf "GET /readyz HTTP/1.1\\r\\nHost: crm-proxy\\r\\nConnection: close\\r\\n\\r\\n" >&3 && cat <&3; fi';
  const answer = await until(
    'a request through nginx to reach the replica',
    async () => {
      const running = await docker(['inspect', '--format', '{{.State.Running}}', name]);
      if (running.stdout.trim() !== 'true') {
        const logs = await docker(['logs', name]);
        throw new Error(`nginx exited: ${logs.stderr}${logs.stdout}`);
      }
      const ran = await docker(['exec', name, image.includes('alpine') ? 'sh' : 'bash', '-c', probe]);
      return /HTTP\/1\.[01] 200/.test(ran.stdout) ? ran.stdout : undefined;
    },
    90_000,
    500,
  );
  const logs = await docker(['logs', name]);
  const said = `${logs.stdout}${logs.stderr}`;
  expect(!/Read-only file system|\[emerg\]/.test(said), `nginx complained: ${said.slice(-1000)}`);
  expect(answer.includes('"status":"ready"'), `not the replica's /readyz: ${answer.slice(0, 300)}`);
  return `${image}: up with no read-only error; /readyz through it answered 200 by the replica`;
}

async function composeConfig(run: CheckRun, root: string): Promise<string> {
  const which = spawnSync('sh', ['-c', 'command -v docker-compose'], { encoding: 'utf8' });
  expect(which.status === 0, 'docker-compose is not installed (Debian: apt-get install docker-compose)');
  const dir = join(run.dir, 'compose');
  await mkdir(dir, { recursive: true });
  await copyFile(join(root, 'compose.yaml'), join(dir, 'compose.yaml'));
  await cp(join(root, 'deploy'), join(dir, 'deploy'), { recursive: true });
  await copyFile(join(root, 'deploy/env.example'), join(dir, '.env'));
  const ran = spawnSync('docker-compose', ['-f', 'compose.yaml', 'config', '--services'], {
    cwd: dir,
    encoding: 'utf8',
  });
  expect(ran.status === 0, `docker-compose config failed: ${ran.stderr}`);
  const version = spawnSync('docker-compose', ['version', '--short'], { encoding: 'utf8' }).stdout.trim();
  return `docker-compose ${version}: services ${ran.stdout.trim().split('\n').join(', ')}`;
}
