// What the console and the admin API need of the OAuth connect flow (src/connect/, wired as
// `ctx.connect`). Declared here so that the admin layer does not depend on how the flow is built.

export interface BeginConnectInput {
  provider: string;
  loginHost?: string;
  label?: string;
  /** Re-connect this connection in place. */
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

export interface ConnectLinkSummary {
  id: string;
  provider: string;
  label: string | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
  connectionId: string | null;
}

export interface ConnectPort {
  begin(input: BeginConnectInput): Promise<{ authorizeUrl: string; binding: string }>;
  bindingCookie(binding: string, secure: boolean): string;
  createLink(input: ConnectLinkInput): Promise<{ id: string; url: string; expiresAt: string }>;
  listLinks(): Promise<ConnectLinkSummary[]>;
  revokeLink(id: string): Promise<boolean>;
}
