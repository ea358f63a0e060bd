// The Salesforce sandbox as its own process (`crm-proxy sandbox salesforce --port 0`), for the
// scripts that judge it with outside clients (jsforce-suite.mjs, sf-cli-check.mjs).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Starts the sandbox with its state in `dataDir`; resolves once it prints its URL and access
 * token. `onLateExit` hears of an exit after the start (a crash, or the script's own stop).
 */
export function startSalesforceSandboxProcess(dataDir, onLateExit = () => {}) {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'crm-proxy.mjs'), 'sandbox', 'salesforce', '--port', '0'],
    {
      env: { ...process.env, CRM_PROXY_DATA_DIR: dataDir, NODE_ENV: 'development' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let started = false;
    child.on('exit', (code, signal) => {
      if (started) onLateExit(code ?? signal);
      else reject(new Error(`the sandbox exited (${code ?? signal}) before it started:\n${out}`));
    });
    child.stdout.on('data', (d) => {
      out += d;
      const url = /sandbox on (http:\/\/\S+)/.exec(out)?.[1];
      const token = /access token: (\S+)/.exec(out)?.[1];
      if (started || url === undefined || token === undefined) return;
      started = true;
      resolve({ child, url, token });
    });
  });
}
