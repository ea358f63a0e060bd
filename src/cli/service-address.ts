// Where the running service is, as the CLI's commands see it: what links and redirect URLs carry,
// and where the in-process sandbox CRMs listen. Found, in order, from the region's public URL, the
// data directory's sandbox.json (written by `serve` once it listens), PORT, or the default port.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/index.ts';
import type { SandboxFile } from './sandbox-bootstrap.ts';

export interface ServiceAddress {
  /** Base URL others reach the service at (no trailing slash). */
  baseUrl: string;
  /** One phrase: what chose it, for the CLI to say. */
  source: string;
  /** Where each sandbox CRM listens, when sandbox.json says so (else the configured ports). */
  sandboxUrls: Record<'salesforce' | 'hubspot', string>;
}

/** sandbox.json, read without loading the sandboxes' code (the CLI's commands stay light). */
function readSandboxFile(dataDir: string): Partial<SandboxFile> | null {
  try {
    return JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as Partial<SandboxFile>;
  } catch {
    return null;
  }
}

export function findService(config: Config, env: Record<string, string | undefined>): ServiceAddress {
  const file = config.sandbox ? readSandboxFile(config.dataDir) : null;
  const sandboxUrls = {
    salesforce: file?.sandboxes?.salesforce?.url ?? `http://127.0.0.1:${config.sandboxPorts.salesforce}`,
    hubspot: file?.sandboxes?.hubspot?.url ?? `http://127.0.0.1:${config.sandboxPorts.hubspot}`,
  };
  const publicVar = `CRM_PROXY_PUBLIC_URL_${config.region.toUpperCase()}`;
  const configured = config.publicUrls[config.region];
  if (configured !== undefined) return { baseUrl: configured, source: publicVar, sandboxUrls };
  if (file !== null && typeof file.base_url === 'string' && file.base_url !== '') {
    return {
      baseUrl: file.base_url.replace(/\/+$/, ''),
      source: `${join(config.dataDir, 'sandbox.json')}, written by the service when it started`,
      sandboxUrls,
    };
  }
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    baseUrl: `http://${shown}:${config.port}`,
    source:
      env['PORT'] === undefined
        ? `the default port (no ${publicVar}, no sandbox.json in ${config.dataDir}, no PORT)`
        : 'PORT',
    sandboxUrls,
  };
}
