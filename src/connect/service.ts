// The browser connect flow (OAuth 2.0 authorization-code grant) and one-time connect links. Generic:
// each CRM's consent URL, code exchange and check call come from its adapter's `connect` facet.
import { type Credentials, grantCredentials } from '../connections/types.ts';
import { accountKey, type Connection } from '../domain/connection.ts';
import { ApiError } from '../errors/index.ts';
import type { ConnectTarget } from '../providers/adapter.ts';
import type { ConnectState } from '../store/types.ts';
import { accountFacts, CONNECTED, FAILURES, type FlowAnswer, page, redirect, withParam } from './answers.ts';
import { BACK_COOKIE, wayBack } from './landing.ts';
import { ConnectLinks } from './links.ts';
import {
  bindingCookieName,
  hashSecret,
  oauthCookie,
  parseCookies,
  pkceVerifier,
  sameHash,
} from './secrets.ts';

export type { SandboxCrm } from './core.ts';

type CallbackRequest = { query: Record<string, unknown>; cookieHeader: string | undefined };

/**
 * The whole flow: its start and links (core.ts, links.ts) and the callback. Connections from
 * pasted credentials (the CLI) are checked with the same parts (checked.ts).
 */
export class ConnectService extends ConnectLinks {
  /**
   * `GET /oauth/callback`: checks the state and the browser, exchanges the code, checks the grant,
   * stores. A page that ends the flow without a connection offers a way back.
   */
  async complete(request: CallbackRequest): Promise<FlowAnswer> {
    const answer = await this.#complete(request);
    const cleared = [...answer.setCookies, oauthCookie(BACK_COOKIE, '', 0)];
    if (answer.kind !== 'page' || answer.content.tone !== 'fail')
      return this.branded({ ...answer, setCookies: cleared });
    const content = { ...answer.content, actions: wayBack(parseCookies(request.cookieHeader)) };
    return this.branded({ ...answer, content, setCookies: cleared });
  }

  async #complete(request: CallbackRequest): Promise<FlowAnswer> {
    const q = (name: string): string | undefined => {
      const v = request.query[name];
      const first = Array.isArray(v) ? v[0] : v;
      return typeof first === 'string' ? first : undefined;
    };
    const stateValue = q('state');
    const crmError = q('error');
    if (stateValue === undefined || stateValue === '' || stateValue.length > 200) {
      return page(400, FAILURES.state_missing, []);
    }
    const stateId = hashSecret(stateValue);
    const state = await this.store.connectStates.find(stateId);
    if (state === null) return page(400, FAILURES.state_unknown, []);
    const cookieName = bindingCookieName(state.bindingHash);
    // Whatever happens next, the browser's binding for this flow is spent.
    const clear = [oauthCookie(cookieName, '', 0)];
    if (state.usedAt !== null) return page(400, FAILURES.state_replayed, clear);
    if (Date.parse(state.expiresAt) <= this.clock.now()) return page(400, FAILURES.state_expired, clear);
    const binding = parseCookies(request.cookieHeader).get(cookieName);
    if (binding === undefined) return page(400, FAILURES.binding_missing, clear);
    if (!sameHash(hashSecret(binding), state.bindingHash)) return page(400, FAILURES.binding_mismatch, clear);
    if (!(await this.store.connectStates.consume(stateId, new Date(this.clock.now()).toISOString()))) {
      return page(400, FAILURES.state_replayed, clear);
    }
    if (crmError !== undefined) {
      const code = crmError.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 64);
      const said = (q('error_description') ?? '').slice(0, 200);
      if (code === 'access_denied') return page(400, FAILURES.denied(said), clear);
      return page(400, FAILURES.crm_error(code, said), clear);
    }
    const code = q('code');
    if (code === undefined || code === '' || code.length > 2048)
      return page(400, FAILURES.code_missing, clear);
    try {
      return await this.#finish(state, stateValue, binding, code, clear);
    } catch (err) {
      this.log?.error({ err, provider: state.provider }, 'connect flow failed');
      const message = err instanceof ApiError && err.status < 500 ? err.message : null;
      return page(500, FAILURES.internal(message), clear);
    }
  }

  // The end of a browser flow: the code exchanged and checked, then a connection created, or an
  // existing one's credentials replaced (a re-connect), and the browser's answer.

  async #finish(
    state: ConnectState,
    stateValue: string,
    binding: string,
    code: string,
    clear: string[],
  ): Promise<FlowAnswer> {
    // A link flow checks its link again before spending the code: it may have expired or been
    // revoked while its owner was on the consent page.
    const linkRefusal = await this.#linkRefusal(state, clear);
    if (linkRefusal !== null) return linkRefusal;
    const { adapter, facet } = this.facet(state.provider);
    const target: ConnectTarget = { origin: state.loginUrl, sandbox: state.sandbox };
    const app = this.app(adapter, facet, target);
    const crm = adapter.profile.displayName;
    const exchange = await facet.exchangeCode(target, app, {
      code,
      redirectUri: this.redirectUri(),
      codeVerifier: facet.pkce ? pkceVerifier(binding, stateValue) : null,
    });
    if (!exchange.ok) {
      return exchange.kind === 'invalid_grant'
        ? page(400, FAILURES.code_refused(crm, exchange.description), clear)
        : page(502, FAILURES.exchange_failed(crm, exchange.description, exchange.status), clear);
    }
    const check = await facet.checkGrant(target, exchange);
    if (!check.ok) return page(502, FAILURES.check_failed(crm, check.description), clear);

    const credentials = grantCredentials(exchange.grant, exchange.grant);
    // CRMs with a host per account refresh at the login host that issued the token (test.salesforce.com …).
    const loginUrl = !target.sandbox && exchange.instanceUrl !== null ? target.origin : null;
    const facts = accountFacts(crm, check);

    if (state.reconnectId !== null) {
      const account = { accountId: check.accountId, instanceUrl: exchange.instanceUrl, loginUrl };
      return this.#reconnected(state, state.reconnectId, credentials, account, crm, facts, clear);
    }

    const created = await this.connections.create({
      provider: state.provider,
      label: state.label,
      instanceUrl: exchange.instanceUrl,
      apiBaseUrl: target.sandbox ? target.origin : null,
      sandbox: target.sandbox,
      credentials,
      accountId: check.accountId,
      loginUrl,
    });
    if (!created.ok) return page(502, FAILURES.not_stored(crm, created.message), clear);
    const connection = created.connection;
    if (
      state.linkId !== null &&
      !(await this.store.connectLinks.consume(
        state.linkId,
        new Date(this.clock.now()).toISOString(),
        connection.id,
      ))
    ) {
      // Another browser finished the same link first, or it expired or was revoked meanwhile:
      // keep nothing.
      await this.connections.remove(connection.id);
      return (await this.#linkRefusal(state, clear)) ?? page(410, FAILURES.link_spent, clear);
    }
    return this.#connected(state, connection, crm, facts, clear);
  }

  /** The answer when the flow's link can no longer be used (expired, revoked, used); null when it can. */
  async #linkRefusal(state: ConnectState, clear: string[]): Promise<FlowAnswer | null> {
    if (state.linkId === null) return null;
    const link = await this.store.connectLinks.find(state.linkId);
    if (link === null || link.usedAt !== null) return page(410, FAILURES.link_spent, clear);
    if (link.revokedAt !== null) return page(410, FAILURES.link_revoked, clear);
    if (Date.parse(link.expiresAt) <= this.clock.now()) return page(410, FAILURES.link_expired, clear);
    return null;
  }

  /** The flow re-connected an existing connection: its credentials replaced, if the account is the same. */
  async #reconnected(
    state: ConnectState,
    reconnectId: string,
    credentials: Credentials,
    account: { accountId: string | null; instanceUrl: string | null; loginUrl: string | null },
    crm: string,
    facts: Array<[string, string]>,
    clear: string[],
  ): Promise<FlowAnswer> {
    const existing = (await this.connections.list()).find((c) => c.id === reconnectId);
    if (existing === undefined) return page(400, FAILURES.reconnect_gone(reconnectId), clear);
    const outcome = await this.replaceCredentials(existing, credentials, account);
    if (outcome === 'other_account')
      return page(400, FAILURES.other_account(crm, existing, account.accountId ?? '?'), clear);
    if (outcome !== 'updated') return page(400, FAILURES.reconnect_gone(existing.id), clear);
    this.log?.info({ connectionId: existing.id, provider: state.provider }, 'connection re-connected');
    if (state.returnTo !== null)
      return redirect(withParam(state.returnTo, 'reconnected', existing.id), clear);
    return withConnection(page(200, CONNECTED(crm, existing.label, facts, true), clear), existing.id);
  }

  /** The answer for a new connection; one to an account already connected is flagged with the first. */
  async #connected(
    state: ConnectState,
    connection: Connection,
    crm: string,
    facts: Array<[string, string]>,
    clear: string[],
  ): Promise<FlowAnswer> {
    this.log?.info(
      { connectionId: connection.id, provider: state.provider, link: state.linkId !== null },
      'connection connected',
    );
    // The same account connected before: flagged, with the earlier connection, not refused.
    const key = accountKey(connection);
    const twin = (await this.connections.list())
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
