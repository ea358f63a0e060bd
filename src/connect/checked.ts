// Connections from pasted credentials (the CLI's `connections add` and `reauth`): the OAuth app a
// refresh token needs is checked up front, and one refresh plus one authenticated call prove them.

import { plainHttpRefusal } from '../connections/plain-http.ts';
import type { CreateConnectionInput, Credentials } from '../connections/types.ts';
import type { Connection } from '../domain/connection.ts';
import { appMissing } from './answers.ts';
import type { ConnectServiceOptions } from './types.ts';

export type CheckedCreateResult =
  | { ok: true; connection: Connection; checked: boolean; user: string | null }
  | { ok: false; message: string };

type Checked =
  | { ok: true; credentials: Credentials; accountId: string | null; user: string | null; checked: boolean }
  | { ok: false; message: string };

export class CheckedConnections {
  private readonly opts: ConnectServiceOptions;
  constructor(opts: ConnectServiceOptions) {
    this.opts = opts;
  }

  /**
   * Adds a connection from pasted credentials (the CLI) after one authenticated call proves they
   * work. OAuth credentials need the CRM's OAuth app (refresh); its absence is refused up front.
   */
  async create(input: CreateConnectionInput, options: { check: boolean }): Promise<CheckedCreateResult> {
    const problem = this.opts.connections.validate(input);
    if (problem !== null) return { ok: false, message: problem };
    const now = new Date(this.opts.clock.now()).toISOString();
    const probe: Connection = {
      id: 'conn_check',
      provider: input.provider,
      region: this.opts.config.region,
      label: null,
      instanceUrl: input.instanceUrl ?? null,
      apiBaseUrl: input.apiBaseUrl ?? null,
      sandbox: input.sandbox ?? false,
      status: 'active',
      statusReason: null,
      credentialsVersion: 1,
      createdAt: now,
      updatedAt: now,
      accountId: null,
      loginUrl: input.loginUrl ?? null,
    };
    const checked = await this.check(probe, input.credentials, options.check, 'stored');
    if (!checked.ok) return checked;
    const created = await this.opts.connections.create({
      ...input,
      credentials: checked.credentials,
      accountId: checked.accountId,
    });
    return created.ok
      ? { ok: true, connection: created.connection, checked: checked.checked, user: checked.user }
      : created;
  }

  /**
   * Replaces a connection's credentials with pasted ones (the CLI's `connections reauth`) after the
   * same check as `createChecked`; credentials of another account than the connection's are refused.
   */
  async reauthorize(
    id: string,
    credentials: Credentials,
    options: { check: boolean },
  ): Promise<CheckedCreateResult> {
    const existing = (await this.opts.connections.list()).find((c) => c.id === id);
    if (existing === undefined) return { ok: false, message: `No connection ${id}.` };
    // Credentials are refreshed and checked at the connection's URLs: never over plain http in production.
    const refusal = this.opts.config.plainHttpCrm === false ? plainHttpRefusal(existing) : null;
    if (refusal !== null) return { ok: false, message: refusal.message };
    const checked = await this.check(existing, credentials, options.check, 'changed');
    if (!checked.ok) return checked;
    if (
      existing.accountId !== null &&
      checked.accountId !== null &&
      existing.accountId !== checked.accountId
    ) {
      return {
        ok: false,
        message: `These credentials reach account ${checked.accountId}, but connection ${id} belongs to account ${existing.accountId}; nothing was changed. Add them as a new connection instead.`,
      };
    }
    const outcome = await this.opts.connections.reauthorize(id, checked.credentials);
    if (outcome === 'not_found') return { ok: false, message: `No connection ${id}.` };
    if (outcome === 'invalid') return { ok: false, message: 'These credentials do not fit this connection.' };
    if (checked.accountId !== null && existing.accountId === null) {
      await this.opts.connections.setAccount(id, {
        accountId: checked.accountId,
        loginUrl: existing.loginUrl,
        instanceUrl: existing.instanceUrl,
      });
    }
    this.opts.onCredentialsReplaced?.(id);
    const connection = (await this.opts.connections.list()).find((c) => c.id === id) ?? existing;
    return { ok: true, connection, checked: checked.checked, user: checked.user };
  }

  /**
   * The OAuth app must exist for a refresh token (refused up front, naming its variables); with
   * `check`, one refresh and one authenticated call prove the credentials and name the account.
   */
  private async check(
    connection: Connection,
    credentials: Credentials,
    check: boolean,
    verb: 'stored' | 'changed',
  ): Promise<Checked> {
    const adapter = this.opts.adapters().find((a) => a.profile.id === connection.provider);
    if (adapter === undefined)
      return { ok: false, message: `provider "${connection.provider}" is not supported` };
    const facet = adapter.connect;
    const sandbox = connection.sandbox ? this.opts.sandboxes?.[connection.provider] : undefined;
    const app = credentials.kind === 'oauth' ? adapter.oauthApp(connection, sandbox) : null;
    if (credentials.kind === 'oauth' && app === null && !connection.sandbox && facet !== undefined) {
      return { ok: false, message: appMissing(adapter.profile.displayName, facet.appVariables).message };
    }
    const unchecked = { ok: true as const, credentials, accountId: null, user: null, checked: false };
    if (!check || facet === undefined || (credentials.kind === 'oauth' && app === null)) return unchecked;
    const crm = adapter.profile.displayName;
    let updated = credentials;
    let accessToken: string;
    if (credentials.kind === 'oauth' && app !== null) {
      const refreshed = await adapter.auth.refresh(app, credentials.refreshToken).catch((err: unknown) => ({
        ok: false as const,
        kind: 'failed' as const,
        body: err instanceof Error ? err.message : String(err),
      }));
      if (!refreshed.ok) {
        return {
          ok: false,
          message:
            refreshed.kind === 'invalid_grant'
              ? `${crm} refused the refresh token (${refreshed.description.slice(0, 200)}); nothing was ${verb}. Get a new one, or connect the account in a browser: ./bin/crm-proxy.mjs connect-link create --provider ${connection.provider}`
              : `Could not refresh the access token at ${app.tokenUrl}${'status' in refreshed && refreshed.status !== undefined ? ` (status ${refreshed.status})` : ''}; nothing was ${verb}. Check the OAuth app variables (${facet.appVariables.join(', ')}) and the network.`,
        };
      }
      accessToken = refreshed.grant.accessToken;
      updated = {
        ...credentials,
        accessToken,
        refreshToken: refreshed.grant.refreshToken ?? credentials.refreshToken,
        ...(refreshed.grant.accessTokenExpiresAt === undefined
          ? {}
          : { accessTokenExpiresAt: refreshed.grant.accessTokenExpiresAt }),
      };
    } else if (credentials.kind === 'private_app') {
      accessToken = credentials.token;
    } else {
      return { ok: false, message: 'credentials.kind must be "oauth" or "private_app"' };
    }
    const outcome = await facet.checkAccess(connection, updated.kind, accessToken);
    if (!outcome.ok) {
      return {
        ok: false,
        message: `The check call to ${crm} failed: ${outcome.description}; nothing was ${verb}.`,
      };
    }
    return {
      ok: true,
      credentials: updated,
      accountId: outcome.accountId,
      user: outcome.user,
      checked: true,
    };
  }
}
