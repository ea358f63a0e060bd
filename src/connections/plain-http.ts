import type { Connection } from '../domain/connection.ts';
import { ApiError } from '../errors/index.ts';

/** The fields of a connection that hold a URL of its CRM. */
export const URL_FIELDS = ['instanceUrl', 'apiBaseUrl', 'loginUrl'] as const;

/** The URLs of a connection that would carry CRM tokens without TLS, by field name. */
export function plainHttpUrls(
  connection: Pick<Connection, (typeof URL_FIELDS)[number]>,
): Array<{ field: string; url: string }> {
  return URL_FIELDS.flatMap((field) => {
    const url = connection[field];
    return typeof url === 'string' && url.toLowerCase().startsWith('http:') ? [{ field, url }] : [];
  });
}

/** Why plain http is refused, and the way out, for messages in the CLI, the API and doctor. */
export const PLAIN_HTTP_FIX =
  'With NODE_ENV=production a CRM is reached over https only (--sandbox included): use an https:// URL, or set CRM_PROXY_ALLOW_PLAIN_HTTP_CRM=true if the CRM sits on a private network you trust.';

/** The refusal of a connection whose CRM URLs are plain http (where not allowed), or null. */
export function plainHttpRefusal(connection: Connection): ApiError | null {
  const plain = plainHttpUrls(connection);
  if (plain.length === 0) return null;
  const urls = plain.map((u) => `${u.field} ${u.url}`).join(', ');
  return new ApiError(
    'connection_plain_http',
    `Connection ${connection.id} (${connection.provider}) reaches its CRM over plain http (${urls}), so nothing was sent. ${PLAIN_HTTP_FIX} To use https, remove the connection and add it again with an https:// ${plain[0]?.field}.`,
    { details: plain },
  );
}
