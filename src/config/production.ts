// What NODE_ENV=production refuses: development conveniences that would be unsafe on a real server.
import { isIP } from 'node:net';
import type { Region } from '../domain/connection.ts';
import { ConfigError } from './settings.ts';

export interface ProductionInputs {
  production: boolean;
  /** CRM_PROXY_SANDBOX as set, undefined when not set. */
  sandboxRequested: boolean | undefined;
  publicUrls: Partial<Record<Region, string>>;
  behindTls: boolean;
  /** CRM URLs set by variables, by variable name, that must be https in production (empty with the opt-out). */
  crmUrls?: Record<string, string | undefined>;
}

/** `localhost`, 127.0.0.0/8 and ::1: a plain-http URL there never crosses a network. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === '0:0:0:0:0:0:0:1';
}

/**
 * The sandbox CRMs (with their `/__sandbox` control API) and the generated development key never
 * run in production: a forced CRM_PROXY_SANDBOX stops the start rather than being ignored, so a
 * deployment never believes it talks to a CRM it does not. A public URL on plain http would send
 * bearer tokens in clear text, unless a TLS-terminating proxy is declared in front.
 */
export function checkProductionSafety(inputs: ProductionInputs): void {
  const problems = productionProblems(inputs);
  if (problems.length === 1) throw new ConfigError(problems[0] as string);
  if (problems.length > 1) throw new ConfigError(problems.map((m) => `- ${m}`).join('\n'));
}

/** Every unsafe production setting at once (none outside production). */
export function productionProblems(inputs: ProductionInputs): string[] {
  if (!inputs.production) return [];
  const problems: string[] = [];
  if (inputs.sandboxRequested === true) {
    problems.push(
      'CRM_PROXY_SANDBOX cannot be on when NODE_ENV=production: the sandbox CRMs, their /__sandbox control API and the generated development key are for development only. Unset CRM_PROXY_SANDBOX, or unset NODE_ENV to try the sandbox.',
    );
  }
  for (const [name, value] of Object.entries(inputs.crmUrls ?? {})) {
    if (value !== undefined && new URL(value).protocol === 'http:') {
      problems.push(
        `${name} is a plain http:// URL: with NODE_ENV=production a CRM is reached over https only. Use an https:// URL, or set CRM_PROXY_ALLOW_PLAIN_HTTP_CRM=true if the CRM sits on a private network you trust.`,
      );
    }
  }
  if (inputs.behindTls) return problems;
  for (const [region, value] of Object.entries(inputs.publicUrls)) {
    const url = new URL(value);
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      problems.push(
        `CRM_PROXY_PUBLIC_URL_${region.toUpperCase()} is a plain http:// URL, which would carry API tokens unencrypted. With NODE_ENV=production use an https:// URL, or set CRM_PROXY_BEHIND_TLS=true if a proxy in front terminates TLS.`,
      );
    }
  }
  return problems;
}
