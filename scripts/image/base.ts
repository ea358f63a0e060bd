// The images the check needs before it builds: the Dockerfile's Node base (pulled, already here, or
// the local stand-in of scripts/image/base-standin.sh) and an nginx to run deploy/nginx.conf.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docker, dockerOk } from './docker.ts';

/** The Dockerfile's `ARG NODE_IMAGE=` default. */
export function dockerfileBase(root: string): string {
  const match = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'));
  if (match?.[1] === undefined) throw new Error('Dockerfile: no ARG NODE_IMAGE=… line');
  return match[1];
}

async function present(image: string): Promise<boolean> {
  return (await docker(['image', 'inspect', image])).code === 0;
}

/** Pulls `image` unless it is here; false when the registry cannot be reached in time. */
async function pulled(image: string): Promise<boolean> {
  if (await present(image)) return true;
  return (await docker(['pull', image], { timeoutMs: 60_000 })).code === 0;
}

export type BaseSource = 'present' | 'pulled' | 'stand-in';

/** Makes the Node base image available under its own tag, saying where it came from. */
export async function ensureNodeBase(root: string, image: string): Promise<BaseSource> {
  if (await present(image)) return 'present';
  if (await pulled(image)) return 'pulled';
  const built = spawnSync('bash', [join(root, 'scripts/image/base-standin.sh'), image], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`the stand-in for ${image} could not be built`);
  return 'stand-in';
}

/** The nginx that compose.yaml names, or Debian's nginx on the Node base where it cannot be pulled. */
export async function ensureNginx(composeImage: string, nodeBase: string): Promise<string> {
  if (await pulled(composeImage)) return composeImage;
  const local = 'crm-proxy-check/nginx:bookworm';
  if (await present(local)) return local;
  const dockerfile = `FROM ${nodeBase}\nRUN apt-get update && apt-get install -y --no-install-recommends nginx-light && rm -rf /var/lib/apt/lists/*\nCMD ["nginx", "-g", "daemon off;"]\n`;
  await dockerOk(['build', '--network', 'host', '-t', local, '-'], { input: dockerfile, timeoutMs: 600_000 });
  return local;
}
