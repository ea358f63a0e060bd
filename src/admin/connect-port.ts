// What the console and the admin API need of the OAuth connect flow (src/connect/, wired as
// `ctx.connect`). Declared here so that the admin layer does not depend on how the flow is built.
import type { ConnectLink } from '../store/types.ts';

export interface BeginConnectInput {
  provider: string;
  loginHost?: string;
  label?: string;
  /** Reconnect this connection in place. */
  reconnect?: string;
  /** Where the browser lands after the callback (`?connected=<connection id>` is added). */
  returnTo?: string;
}

export interface ConnectLinkInput {
  provider: string;
  label?: string;
  loginHost?: string;
  ttlMs?: number;
}

/** A connect link as the console and the admin API list it. */
export interface ConnectLinkSummary extends ConnectLink {
  status: 'active' | 'used' | 'expired' | 'revoked';
}

export interface ConnectPort {
  begin(input: BeginConnectInput): Promise<{ authorizeUrl: string; binding: string }>;
  bindingCookie(binding: string, secure: boolean): string;
  createLink(input: ConnectLinkInput): Promise<{ id: string; url: string; expiresAt: string }>;
  listLinks(): Promise<ConnectLinkSummary[]>;
  revokeLink(id: string): Promise<'revoked' | 'not_found' | 'used' | 'already_revoked'>;
  /** The redirect URL to register in each CRM's app settings. */
  redirectUri(): string;
  /** The CRMs that can be connected in a browser, and the variables each one still lacks. */
  providers(): Array<{ provider: string; displayName: string; ready: boolean; missing: string[] }>;
}
