// Runs the real CLI (src/cli/index.ts through tsx) as a child process, as a user would.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('../../src/cli/index.ts', import.meta.url));
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

export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
  viaBin = false,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const argv = viaBin ? [BIN, ...args] : ['--import', 'tsx', ENTRY, ...args];
    const child = spawn(process.execPath, argv, { env, stdio: 'pipe' });
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
