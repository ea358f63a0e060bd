// What the connect flow answers a browser: redirects and the pages it renders (connected, or why not).
import type { Connection } from '../domain/connection.ts';
import { ApiError } from '../errors/index.ts';
import type { AccessCheckOutcome } from '../providers/adapter.ts';
import type { PageContent } from './pages.ts';

const LABEL_MAX = 200;
const RETURN_TO_MAX = 500;

/** A redirect, or a page and the connection it ended with (a header only, never the page's text). */
export type FlowAnswer =
  | { kind: 'redirect'; location: string; setCookies?: string[] }
  | { kind: 'page'; status: number; content: PageContent; connectionId?: string };

export function invalid(field: string, message: string): ApiError {
  return new ApiError('invalid_value', message, { details: [{ field, message }] });
}

/** A connection's label as given: absent (null) or text of at most LABEL_MAX characters. */
export function checkedLabel(label: unknown): string | null {
  if (label === undefined || label === null) return null;
  if (typeof label !== 'string' || label.length > LABEL_MAX) {
    throw invalid('label', `label must be text of at most ${LABEL_MAX} characters`);
  }
  return label;
}

export function appMissing(crm: string, variables: readonly string[], sandboxRuns = false): ApiError {
  // In sandbox mode a login host is what turned the request towards a real account.
  const sandboxHint = sandboxRuns
    ? ` The ${crm} sandbox needs no app and has no login host: leave out the login host (--login-host, login_host) to connect the sandbox instead.`
    : '';
  return new ApiError(
    'service_unavailable',
    `Real ${crm} accounts cannot be connected: the service has no ${crm} OAuth app. Set ${variables.join(' and ')} (see docs/connecting-a-crm.md) and restart the service.${sandboxHint}`,
    { details: variables.map((name) => ({ variable: name, set: false })) },
  );
}

/** A path on this service: one leading slash, no scheme or host, no backslash or control character. */
export function isLocalPath(value: string): boolean {
  return (
    typeof value === 'string' &&
    value.length <= RETURN_TO_MAX &&
    value.startsWith('/') &&
    !value.startsWith('//') &&
    // Printable ASCII only: no backslash (browsers read it as a slash), no space or control character.
    /^[\x21-\x5b\x5d-\x7e]+$/.test(value)
  );
}

export function withParam(path: string, name: string, value: string): string {
  const url = new URL(path, 'http://local');
  url.searchParams.set(name, value);
  return `${url.pathname}${url.search}${url.hash}`;
}

export function page(status: number, content: PageContent, connectionId?: string): FlowAnswer {
  return { kind: 'page', status, content, ...(connectionId === undefined ? {} : { connectionId }) };
}

const START_AGAIN =
  'Start again from the crm-proxy console (Connect), or ask the operator for a new connect link. Nothing was created.';

/** The page that ends a flow with a connection: the CRM, the account, what is shared; no internal id. */
export function CONNECTED(
  crm: string,
  label: string | null,
  check: Extract<AccessCheckOutcome, { ok: true }>,
  reconnected: boolean,
): PageContent {
  const facts: Array<[string, string]> = [['CRM', crm]];
  if (label !== null) facts.push(['For', label]);
  if (check.accountId !== null) facts.push([`${crm} account`, check.accountId]);
  if (check.user !== null) facts.push(['Signed in as', check.user]);
  return {
    tone: 'ok',
    title: reconnected ? `${crm} reconnected` : `${crm} connected`,
    what: reconnected
      ? `The access was renewed; everything that used it keeps working.`
      : `Your ${crm} account is connected. The service can now read and write the ${crm} records your user can see, until you revoke its access in ${crm}.`,
    facts,
    next: reconnected
      ? 'You can close this window.'
      : 'You can close this window. The operator can now create an API token for this connection.',
    reason: reconnected ? 'reconnected' : 'connected',
  };
}

export const fail = (reason: string, title: string, what: string, next = START_AGAIN): PageContent => ({
  tone: 'fail',
  title,
  what,
  next,
  reason,
});

export const FAILURES = {
  state_missing: fail(
    'state_missing',
    'This sign-in did not come from crm-proxy',
    'The address has no state parameter, so it cannot be matched to a connect flow started here.',
  ),
  state_unknown: fail(
    'state_unknown',
    'Unknown or forged sign-in',
    'The state parameter matches no connect flow started by this service. It may have been altered, or the flow was started by another deployment.',
  ),
  state_replayed: fail(
    'state_replayed',
    'This sign-in was already used',
    'Each connect flow can finish only once, and this one already has (the page was reloaded, or the address was opened twice).',
    'If the account is not connected yet, start again from the console or the connect link. Nothing new was created.',
  ),
  state_expired: fail(
    'state_expired',
    'The sign-in took too long',
    'A connect flow must finish within 10 minutes of starting, and this one expired.',
  ),
  binding_missing: fail(
    'binding_missing',
    'Finish in the browser you started in',
    'The flow was started in another browser (or its cookies were cleared or blocked), so this browser cannot finish it.',
    'Open the console or the connect link again in this browser, with cookies allowed for this site. Nothing was created.',
  ),
  binding_mismatch: fail(
    'binding_mismatch',
    'This sign-in belongs to another browser session',
    'The browser session that finished the flow is not the one that started it.',
  ),
  code_missing: fail(
    'code_missing',
    'The CRM sent no authorization code',
    'The answer from the CRM has neither a code nor an error.',
  ),
  denied: (said: string) =>
    fail(
      'access_denied',
      'Access was not granted',
      `The CRM's consent page was declined, so crm-proxy got no access.${said === '' ? '' : ` The CRM said: “${said}”.`}`,
      'To connect the account, start again and choose Allow on the consent page. Nothing was created.',
    ),
  crm_error: (code: string, said: string) => ({
    ...fail(
      'crm_error',
      'The CRM refused the sign-in',
      `The CRM answered with the error “${code}”${said === '' ? '' : `: “${said}”`}.`,
      'Check the app settings in the CRM (the redirect URL must be exactly this service’s /oauth/callback, and the scopes must be allowed), then start again. Nothing was created.',
    ),
    facts: [['CRM error', code]] as const,
  }),
  code_refused: (crm: string, said: string) =>
    fail(
      'code_refused',
      'The authorization code was refused',
      `${crm} refused the authorization code: it was already used, has expired, or was issued to another app or another sign-in (${said}).`,
    ),
  exchange_failed: (crm: string, said: string, status: number | undefined) =>
    fail(
      'exchange_failed',
      `${crm} did not complete the sign-in`,
      `Exchanging the authorization code at ${crm}'s token endpoint failed${status === undefined ? '' : ` (status ${status})`}: ${said}.`,
      `Check the OAuth app's client id and secret and that ${crm} is reachable, then start again. Nothing was created.`,
    ),
  check_failed: (crm: string, said: string) =>
    fail(
      'check_failed',
      `The new ${crm} connection could not make a call`,
      `The sign-in worked, but the check call with the new credentials failed: ${said}.`,
      `Check that the ${crm} user may use the API and that the app has the scopes the README lists, then start again. Nothing was created.`,
    ),
  other_account: (crm: string, existing: Connection, got: string) =>
    fail(
      'other_account',
      `That is another ${crm} account`,
      `Connection ${existing.id} belongs to account ${existing.accountId ?? '?'}, but the sign-in was for account ${got}. Its credentials were not changed.`,
      `Reconnect while signed in to the same ${crm} account, or connect the other account as a new connection.`,
    ),
  reconnect_gone: (id: string) =>
    fail('reconnect_gone', 'The connection is gone', `Connection ${id} was removed while the flow ran.`),
  not_stored: (crm: string, said: string) =>
    fail('not_stored', `The ${crm} connection could not be stored`, said),
  link_unknown: fail(
    'link_unknown',
    'This connect link is not valid',
    'No connect link has this address. It may have been copied incompletely.',
    'Check the address, or ask the operator for a new connect link.',
  ),
  link_used: fail(
    'link_used',
    'This connect link was already used',
    'A connect link works once, and an account was already connected with this one.',
    'If you need to connect again, ask the operator for a new connect link. Nothing was created.',
  ),
  link_revoked: fail(
    'link_revoked',
    'This connect link was revoked',
    'The operator withdrew this link.',
    'Ask the operator for a new connect link.',
  ),
  link_expired: fail(
    'link_expired',
    'This connect link has expired',
    'Connect links work for a limited time, and this one is past it.',
    'Ask the operator for a new connect link.',
  ),
  link_cannot_start: (message: string) =>
    fail(
      'link_cannot_start',
      'The connection cannot start',
      message,
      'Tell the operator who sent you the link.',
    ),
  internal: (message: string | null) =>
    fail(
      'internal_error',
      'Something went wrong',
      message ??
        'crm-proxy could not finish the connection because of an internal error (its log has the details).',
    ),
};
