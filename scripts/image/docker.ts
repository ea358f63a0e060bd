// The docker CLI as the image check uses it: one call, its exit code and output; containers named
// with a per-run prefix so that a cleanup finds every one of them.
import { execFile, spawn } from 'node:child_process';

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `docker ...args`; never throws for a non-zero exit (the caller decides). */
export function docker(args: string[], options: { input?: string; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(
      'docker',
      args,
      { maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? 120_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

/** `docker ...args` that must succeed: its stdout, trimmed. */
export async function dockerOk(args: string[], options: { input?: string; timeoutMs?: number } = {}) {
  const ran = await docker(args, options);
  if (ran.code !== 0) {
    throw new Error(
      `docker ${args.slice(0, 3).join(' ')} … failed (${ran.code}): ${ran.stderr.trim().slice(-2000)}`,
    );
  }
  return ran.stdout.trim();
}

/** A long docker command (build, pull) with its output shown as it runs; resolves to its exit code. */
export function dockerStreamed(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('docker', args, { stdio: ['ignore', 'inherit', 'inherit'], env });
    child.on('exit', (code) => resolve(code ?? 1));
    child.on('error', () => resolve(127));
  });
}

export async function inspect(container: string, format: string): Promise<string> {
  return dockerOk(['inspect', '--format', format, container]);
}

/** Removes every container whose name starts with `prefix`, running or not. */
export async function removeContainers(prefix: string): Promise<void> {
  const ids = (await docker(['ps', '-aq', '--filter', `name=^${prefix}`])).stdout
    .split(/\s+/)
    .filter(Boolean);
  if (ids.length > 0) await docker(['rm', '-f', '-v', ...ids]);
}

/** Removes the networks whose name starts with `prefix` (after their containers). */
export async function removeNetworks(prefix: string): Promise<void> {
  const ids = (await docker(['network', 'ls', '-q', '--filter', `name=^${prefix}`])).stdout
    .split(/\s+/)
    .filter(Boolean);
  if (ids.length > 0) await docker(['network', 'rm', ...ids]);
}
