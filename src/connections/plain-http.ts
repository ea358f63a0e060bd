import type { Connection } from '../domain/connection.ts';

/** The URLs of a connection that would carry CRM tokens without TLS, by field name. */
export function plainHttpUrls(
  connection: Pick<Connection, 'instanceUrl' | 'apiBaseUrl' | 'loginUrl'>,
): Array<{ field: string; url: string }> {
  const fields = {
    instanceUrl: connection.instanceUrl,
    apiBaseUrl: connection.apiBaseUrl,
    loginUrl: connection.loginUrl,
  };
  return Object.entries(fields).flatMap(([field, url]) =>
    typeof url === 'string' && url.toLowerCase().startsWith('http:') ? [{ field, url }] : [],
  );
}

/** Why plain http is refused, and the way out, for messages in the CLI, the API and doctor. */
export const PLAIN_HTTP_FIX =
  'With NODE_ENV=production a CRM is reached over https only (--sandbox included): use an https:// URL, or set CRM_PROXY_ALLOW_PLAIN_HTTP_CRM=true if the CRM sits on a private network you trust.';
