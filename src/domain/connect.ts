// The OAuth connect flow as the console, the admin API and the CLI use it (src/connect/ implements
// it, wired as `ctx.connect`): declared here so that those layers do not depend on how it is built.
import type { Provider } from './connection.ts';

/** A one-time connect link, as listed: never its secret. */
export interface ConnectLink {
  id: string;
  provider: Provider;
  label: string | null;
  loginUrl: string | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
  /** The connection the link created, once used. */
  connectionId: string | null;
}

export interface ConnectLinkView extends ConnectLink {
  status: 'active' | 'used' | 'expired' | 'revoked';
}

export interface BeginConnectInput {
  provider: Provider;
  /** The login host an operator chose, for a CRM that offers a choice (its `loginOrigin` checks it). */
  loginHost?: string | undefined;
  label?: string | null | undefined;
  /** Id of a connection whose credentials the flow replaces in place. */
  reconnect?: string | undefined;
  /** A path on this service to redirect to after success (`?connected=<id>` or `?reconnected=<id>`). */
  returnTo?: string | undefined;
  /**
   * True: connect the sandbox CRM running beside the service. Default: the sandbox when one runs
   * and no login host is given (a re-connect follows its connection).
   */
  sandbox?: boolean | undefined;
}

export interface BeginConnectResult {
  /** Where to send the browser: the CRM's consent page. */
  authorizeUrl: string;
  /** The browser binding: give it to the browser only through `bindingCookie`. */
  binding: string;
}

/** What a link's flow will start, as in `begin`; `ttlMs` defaults to `CRM_PROXY_CONNECT_LINK_TTL_HOURS` (24 h). */
export type ConnectLinkInput = Pick<BeginConnectInput, 'provider' | 'label' | 'loginHost' | 'sandbox'> & {
  ttlMs?: number | undefined;
};

/**
 * A flow answer as sent to the browser: a redirect, or a rendered page; with the security headers
 * and the cookies it sets.
 */
export type SentAnswer = { setCookies: string[]; headers: Readonly<Record<string, string>> } & (
  | { kind: 'redirect'; location: string }
  | { kind: 'page'; status: number; html: string }
);

/** The two steps of the browser connect flow the public routes run. */
export interface ConnectFlowPort {
  complete(request: {
    query: Record<string, unknown>;
    cookieHeader: string | undefined;
  }): Promise<SentAnswer>;
  /** `proceed`: the landing page's Continue link was followed; go on to the CRM. */
  openLink(secret: string, secure: boolean, proceed?: boolean): Promise<SentAnswer>;
}

export interface ConnectPort {
  begin(input: BeginConnectInput): Promise<BeginConnectResult>;
  bindingCookie(binding: string, secure: boolean): string;
  createLink(input: ConnectLinkInput): Promise<{ id: string; url: string; expiresAt: string }>;
  listLinks(): Promise<ConnectLinkView[]>;
  /** Refuses (ApiError) a link that is unknown or was used. */
  revokeLink(id: string): Promise<'revoked' | 'already_revoked'>;
  /** The redirect URL to register in each CRM's app settings. */
  redirectUri(): string;
  /** The CRMs that can be connected in a browser, and the variables each one still lacks. */
  providers(): Array<{ provider: string; displayName: string; ready: boolean; missing: string[] }>;
}
