// The OAuth connect flow as its users see it, so that they do not depend on src/connect/.
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
  connectionId: string | null;
}

export interface ConnectLinkView extends ConnectLink {
  status: 'active' | 'used' | 'expired' | 'revoked';
}

export interface BeginConnectInput {
  provider: Provider;
  /** Checked by the CRM's `loginOrigin`. */
  loginHost?: string | undefined;
  label?: string | null | undefined;
  /** Id of a connection whose credentials the flow replaces in place. */
  reconnect?: string | undefined;
  /** A path on this service to redirect to after success. */
  returnTo?: string | undefined;
  /** Default: the sandbox when one runs and no login host is given (a re-connect follows its connection). */
  sandbox?: boolean | undefined;
}

export interface BeginConnectResult {
  authorizeUrl: string;
  /** The browser binding: give it to the browser only through `bindingCookie`. */
  binding: string;
}

/** `ttlMs` defaults to `CRM_PROXY_CONNECT_LINK_TTL_HOURS`. */
export type ConnectLinkInput = Pick<BeginConnectInput, 'provider' | 'label' | 'loginHost' | 'sandbox'> & {
  ttlMs?: number | undefined;
};

/** A flow answer as sent to the browser, with its security headers and cookies. */
export type SentAnswer = { setCookies: string[]; headers: Readonly<Record<string, string>> } & (
  | { kind: 'redirect'; location: string }
  | { kind: 'page'; status: number; html: string }
);

export interface ConnectFlowPort {
  complete(request: {
    query: Record<string, unknown>;
    cookieHeader: string | undefined;
  }): Promise<SentAnswer>;
  /** `proceed`: the landing page's Continue link was followed. */
  openLink(secret: string, secure: boolean, proceed?: boolean): Promise<SentAnswer>;
}

export interface ConnectPort {
  begin(input: BeginConnectInput): Promise<BeginConnectResult>;
  bindingCookie(binding: string, secure: boolean): string;
  createLink(input: ConnectLinkInput): Promise<{ id: string; url: string; expiresAt: string }>;
  listLinks(): Promise<ConnectLinkView[]>;
  /** Refuses a link that is unknown or was used. */
  revokeLink(id: string): Promise<'revoked' | 'already_revoked'>;
  /** The redirect URL to register in each CRM's app settings. */
  redirectUri(): string;
  /** The CRMs that can be connected in a browser, and the variables each lacks. */
  providers(): Array<{ provider: string; displayName: string; ready: boolean; missing: string[] }>;
}
