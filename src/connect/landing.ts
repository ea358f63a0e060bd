// Our pages around a connect link: the landing page (who asks for what), and the way back from a
// flow that ended without a connection.
import type { PageContent } from './pages.ts';
import { oauthCookie } from './secrets.ts';

/** Carries the link's own path to the callback, so a failed flow can offer to start again. */
export const BACK_COOKIE = 'crmp_connect_back';

export function landingPage(input: {
  crm: string;
  service: string;
  label: string | null;
  expiresAt: string;
  continueHref: string;
}): PageContent {
  const { crm, service } = input;
  return {
    tone: 'ok',
    title: `Connect your ${crm} account`,
    what:
      `${service} asks for access to your ${crm} account. ` +
      `${crm} will show its own consent page next; once you allow, ${service} can read and write the ` +
      `${crm} records your user can see, add custom fields and make other ${crm} API calls as you, ` +
      `until you revoke its access in ${crm} or the operator removes the connection. Your password is never shared.`,
    facts: [
      ['Asked by', service],
      ['CRM', crm],
      ...(input.label === null ? [] : ([['For', input.label]] as Array<[string, string]>)),
      ['Link valid until', `${input.expiresAt.slice(0, 16).replace('T', ' ')} UTC`],
    ],
    next: `If you did not expect this request, close this page: nothing happens without your consent on ${crm}'s page.`,
    actions: [{ href: input.continueHref, label: `Continue to ${crm}`, primary: true }],
    reason: 'link_landing',
  };
}

/** The Set-Cookie that remembers, for the callback, which link the flow started from (15 minutes). */
export function backCookie(linkPath: string, secure: boolean): string {
  return oauthCookie(BACK_COOKIE, encodeURIComponent(linkPath), 900, secure);
}

/** A way back from a failed flow: to the link's landing page when it started there, else the console. */
export function wayBack(cookies: Record<string, string | undefined>): PageContent['actions'] {
  // Cookie values arrive URL-decoded; a malformed one stays as it is and leads back to the console.
  const path = cookies[BACK_COOKIE] ?? '';
  if (/^\/connect\/[A-Za-z0-9_-]{1,100}$/.test(path)) {
    return [{ href: path, label: 'Start again', primary: true }];
  }
  return [{ href: '/console/connections', label: 'Back to the console (operators)', primary: false }];
}
