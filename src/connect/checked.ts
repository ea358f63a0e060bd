// Connections from pasted credentials (the CLI's `connections add` and `reauth`), proven by one
// refresh and one authenticated call.
import { plainHttpRefusal } from '../connections/plain-http.ts';
import { type CreateConnectionInput, type Credentials, grantCredentials } from '../connections/types.ts';
import type { Connection } from '../domain/connection.ts';
import { appMissing } from './answers.ts';
import type { ConnectCore } from './core.ts';

export type CheckedCreateResult =
  | { ok: true; connection: Connection; checked: boolean; user: string | null }
  | { ok: false; message: string };

type Checked =
  | { ok: true; credentials: Credentials; accountId: string | null; user: string | null; checked: boolean }
  | { ok: false; message: string };

/** Adds a connection from pasted credentials (the CLI's `connections add`) after the check. */
export async function createChecked(
  flow: ConnectCore,
  input: CreateConnectionInput,
  options: { check: boolean },
): Promise<CheckedCreateResult> {
  const problem = flow.deps.connections.validate(input);
  if (problem !== null) return { ok: false, message: problem };
  const now = new Date(flow.deps.clock.now()).toISOString();
  const probe: Connection = {
    id: 'conn_check',
    provider: input.provider,
    region: flow.deps.config.region,
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
  const checked = await checkCredentials(flow, probe, input.credentials, options.check, 'stored');
  if (!checked.ok) return checked;
  const created = await flow.deps.connections.create({
    ...input,
    credentials: checked.credentials,
    accountId: checked.accountId,
  });
  return created.ok
    ? { ok: true, connection: created.connection, checked: checked.checked, user: checked.user }
    : created;
}

/** Replaces a connection's credentials with pasted ones (`connections reauth`) after the same check. */
export async function reauthorizeChecked(
  flow: ConnectCore,
  existing: Connection,
  credentials: Credentials,
  options: { check: boolean },
): Promise<{ ok: true; checked: boolean } | { ok: false; message: string }> {
  // Credentials are refreshed and checked at the connection's URLs: never over plain http in production.
  const refusal = flow.deps.config.plainHttpCrm === false ? plainHttpRefusal(existing) : null;
  if (refusal !== null) return { ok: false, message: refusal.message };
  const checked = await checkCredentials(flow, existing, credentials, options.check, 'changed');
  if (!checked.ok) return checked;
  const outcome = await flow.replaceCredentials(existing, checked.credentials, checked);
  if (outcome === 'updated') return { ok: true, checked: checked.checked };
  const message =
    outcome === 'other_account'
      ? `These credentials reach account ${checked.accountId}, but connection ${existing.id} belongs to account ${existing.accountId}; nothing was changed. Add them as a new connection instead.`
      : outcome === 'not_found'
        ? `No connection ${existing.id}.`
        : 'These credentials do not fit this connection.';
  return { ok: false, message };
}

/** The OAuth app a refresh token needs must exist; with `check`, a refresh and a call prove the credentials. */
async function checkCredentials(
  flow: ConnectCore,
  connection: Connection,
  credentials: Credentials,
  check: boolean,
  verb: 'stored' | 'changed',
): Promise<Checked> {
  const adapter = flow.deps.adapters().find((a) => a.profile.id === connection.provider);
  if (adapter === undefined)
    return { ok: false, message: `provider "${connection.provider}" is not supported` };
  const facet = adapter.connect;
  const sandbox = connection.sandbox ? flow.deps.sandboxes?.[connection.provider] : undefined;
  const app = credentials.kind === 'oauth' ? adapter.oauthApp(connection, sandbox) : null;
  if (credentials.kind === 'oauth' && app === null && !connection.sandbox && facet !== undefined) {
    return { ok: false, message: appMissing(adapter.profile.displayName, facet.appVariables).message };
  }
  const unchecked = { ok: true as const, credentials, accountId: null, user: null, checked: false };
  if (!check || facet === undefined) return unchecked;
  const crm = adapter.profile.displayName;
  let updated = credentials;
  let accessToken: string;
  if (credentials.kind === 'private_app') {
    accessToken = credentials.token;
  } else if (app === null) {
    return unchecked;
  } else {
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
    updated = grantCredentials(refreshed.grant, credentials);
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
