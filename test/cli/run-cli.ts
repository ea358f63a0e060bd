// Runs the CLI's `main(argv)` in this process with its own environment and streams (fast), or the
// installed launcher as a child process, as a user would (`viaBin`).
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { withCliIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import type { ProviderModule } from '../../src/providers/adapter.ts';

/** The installed launcher (`crm-proxy` on PATH after npm install -g / npx). */
export const BIN = fileURLToPath(new URL('../../bin/crm-proxy.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The parent's environment minus anything that would point the CLI at another store or key. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('CRM_PROXY_') || k === 'DATABASE_URL' || k === 'NODE_ENV') continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
  viaBin = false,
  /** The CRMs the CLI knows, in-process only (a build with a CRM of its own); the built-in ones by default. */
  providers?: readonly ProviderModule[],
): Promise<CliResult> {
  if (viaBin) return runBin(args, env, input);
  let stdout = '';
  let stderr = '';
  const io = {
    env,
    stdin: Readable.from([input ?? '']),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    ...(providers === undefined ? {} : { providers }),
  };
  const code = await withCliIo(io, () => main(args));
  return { code: code ?? null, stdout, stderr };
}

function runBin(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
