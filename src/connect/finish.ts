// The end of a browser flow: the code exchanged and checked, then a connection created, or an
// existing one's credentials replaced (a re-connect), and the browser's answer.
import type { CreateConnectionInput, Credentials } from '../connections/types.ts';
import { accountKey, type Connection } from '../domain/connection.ts';
import type { ConnectTarget } from '../providers/adapter.ts';
import type { ConnectState } from '../store/types.ts';
import { accountFacts, CONNECTED, FAILURES, type FlowAnswer, page, redirect, withParam } from './answers.ts';
import type { ConnectCore } from './core.ts';
import { pkceVerifier } from './secrets.ts';

export class FlowFinish {
  private readonly core: ConnectCore;
  constructor(core: ConnectCore) {
    this.core = core;
  }

  async finish(
    state: ConnectState,
    stateValue: string,
    binding: string,
    code: string,
    clear: string[],
  ): Promise<FlowAnswer> {
    // A link flow checks its link again before spending the code: it may have expired or been
    // revoked while its owner was on the consent page.
    const linkRefusal = await this.linkRefusal(state, clear);
    if (linkRefusal !== null) return linkRefusal;
    const { adapter, facet } = this.core.facet(state.provider);
    const target: ConnectTarget = { origin: state.loginUrl, sandbox: state.sandbox };
    const app = this.core.app(adapter, facet, target);
    const crm = adapter.profile.displayName;
    const exchange = await facet.exchangeCode(target, app, {
      code,
      redirectUri: this.core.redirectUri(),
      codeVerifier: facet.pkce ? pkceVerifier(binding, stateValue) : null,
    });
    if (!exchange.ok) {
      return exchange.kind === 'invalid_grant'
        ? page(400, FAILURES.code_refused(crm, exchange.description), clear)
        : page(502, FAILURES.exchange_failed(crm, exchange.description, exchange.status), clear);
    }
    const check = await facet.checkGrant(target, exchange);
    if (!check.ok) return page(502, FAILURES.check_failed(crm, check.description), clear);

    const credentials: Credentials = {
      kind: 'oauth',
      refreshToken: exchange.grant.refreshToken,
      accessToken: exchange.grant.accessToken,
      ...(exchange.grant.accessTokenExpiresAt === undefined
        ? {}
        : { accessTokenExpiresAt: exchange.grant.accessTokenExpiresAt }),
      ...(exchange.grant.scope === undefined ? {} : { scope: exchange.grant.scope }),
    };
    // CRMs with a host per account refresh at the login host that issued the token (test.salesforce.com …).
    const loginUrl = !target.sandbox && exchange.instanceUrl !== null ? target.origin : null;
    const facts = accountFacts(crm, check);

    if (state.reconnectId !== null) {
      const account = { accountId: check.accountId, instanceUrl: exchange.instanceUrl, loginUrl };
      return this.reconnected(state, state.reconnectId, credentials, account, crm, facts, clear);
    }

    const input: CreateConnectionInput = {
      provider: state.provider,
      label: state.label,
      instanceUrl: exchange.instanceUrl,
      apiBaseUrl: target.sandbox ? target.origin : null,
      sandbox: target.sandbox,
      credentials,
      accountId: check.accountId,
      loginUrl,
    };
    const created = await this.core.connections.create(input);
    if (!created.ok) return page(502, FAILURES.not_stored(crm, created.message), clear);
    const connection = created.connection;
    if (
      state.linkId !== null &&
      !(await this.core.store.connectLinks.consume(
        state.linkId,
        new Date(this.core.clock.now()).toISOString(),
        connection.id,
      ))
    ) {
      // Another browser finished the same link first, or it expired or was revoked meanwhile:
      // keep nothing.
      await this.core.connections.remove(connection.id);
      return (await this.linkRefusal(state, clear)) ?? page(410, FAILURES.link_spent, clear);
    }
    return this.connected(state, connection, crm, facts, clear);
  }

  /** The answer when the flow's link can no longer be used (expired, revoked, used); null when it can. */
  private async linkRefusal(state: ConnectState, clear: string[]): Promise<FlowAnswer | null> {
    if (state.linkId === null) return null;
    const link = await this.core.store.connectLinks.find(state.linkId);
    if (link === null || link.usedAt !== null) return page(410, FAILURES.link_spent, clear);
    if (link.revokedAt !== null) return page(410, FAILURES.link_revoked, clear);
    if (Date.parse(link.expiresAt) <= this.core.clock.now()) return page(410, FAILURES.link_expired, clear);
    return null;
  }

  /** The flow re-connected an existing connection: its credentials replaced, if the account is the same. */
  private async reconnected(
    state: ConnectState,
    reconnectId: string,
    credentials: Credentials,
    account: { accountId: string | null; instanceUrl: string | null; loginUrl: string | null },
    crm: string,
    facts: Array<[string, string]>,
    clear: string[],
  ): Promise<FlowAnswer> {
    const existing = (await this.core.connections.list()).find((c) => c.id === reconnectId);
    if (existing === undefined) return page(400, FAILURES.reconnect_gone(reconnectId), clear);
    if (
      existing.accountId !== null &&
      account.accountId !== null &&
      existing.accountId !== account.accountId
    ) {
      return page(400, FAILURES.other_account(crm, existing, account.accountId), clear);
    }
    const outcome = await this.core.connections.reauthorize(existing.id, credentials);
    if (outcome !== 'updated') return page(400, FAILURES.reconnect_gone(existing.id), clear);
    await this.core.connections.setAccount(existing.id, {
      accountId: account.accountId ?? existing.accountId,
      loginUrl: account.loginUrl ?? existing.loginUrl,
      instanceUrl: account.instanceUrl ?? existing.instanceUrl,
    });
    this.core.onReplaced(existing.id);
    this.core.log?.info({ connectionId: existing.id, provider: state.provider }, 'connection re-connected');
    if (state.returnTo !== null)
      return redirect(withParam(state.returnTo, 'reconnected', existing.id), clear);
    return withConnection(page(200, CONNECTED(crm, existing.label, facts, true), clear), existing.id);
  }

  /** The answer for a new connection; one to an account already connected is flagged with the first. */
  private async connected(
    state: ConnectState,
    connection: Connection,
    crm: string,
    facts: Array<[string, string]>,
    clear: string[],
  ): Promise<FlowAnswer> {
    this.core.log?.info(
      { connectionId: connection.id, provider: state.provider, link: state.linkId !== null },
      'connection connected',
    );
    // The same account connected before: flagged, with the earlier connection, not refused.
    const key = accountKey(connection);
    const twin = (await this.core.connections.list())
      .filter((c) => c.id !== connection.id && key !== null && accountKey(c) === key)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0];
    if (state.returnTo !== null) {
      const to = withParam(state.returnTo, 'connected', connection.id);
      return redirect(twin === undefined ? to : withParam(to, 'same_account_as', twin.id), clear);
    }
    // The account owner sees no internal ids: a second connection of the same account is the
    // operator's to see (the console flags it).
    return withConnection(page(200, CONNECTED(crm, connection.label, facts, false), clear), connection.id);
  }
}

/** The connection a page ended with, for tests and support: a header, never the page's text. */
function withConnection(answer: FlowAnswer, id: string): FlowAnswer {
  return { ...answer, headers: { ...answer.headers, 'x-connect-connection': id } };
}
