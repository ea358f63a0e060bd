// The browser connect flow (OAuth 2.0 authorization-code grant) and one-time connect links. Generic:
// each CRM's consent URL, code exchange and check call come from its adapter's `connect` facet.
import { fastifyCookie } from '@fastify/cookie';
import { grantCredentials } from '../connections/types.ts';
import type { ConnectFlowPort, SentAnswer } from '../domain/connect.ts';
import { accountKey, type Connection } from '../domain/connection.ts';
import { ApiError } from '../errors/index.ts';
import type { AccessCheckOutcome, ConnectTarget } from '../providers/adapter.ts';
import type { ConnectState } from '../store/types.ts';
import { CONNECTED, FAILURES, type FlowAnswer, page, withParam } from './answers.ts';
import { BACK_COOKIE, wayBack } from './landing.ts';
import { ConnectLinks } from './links.ts';
import { bindingCookieName, hashSecret, oauthCookie, pkceVerifier, sameHash } from './secrets.ts';

/** What the callback carries: its query's parameters (the first of repeated ones) and the browser's cookies. */
interface Callback {
  param: (name: string) => string | undefined;
  cookies: Record<string, string | undefined>;
}

export class ConnectService extends ConnectLinks implements ConnectFlowPort {
  /** `GET /oauth/callback`: checks the state and the browser, exchanges the code, checks the grant, stores. */
  async complete(request: Parameters<ConnectFlowPort['complete']>[0]): Promise<SentAnswer> {
    const param = (name: string): string | undefined => {
      const v = request.query[name];
      const first = Array.isArray(v) ? v[0] : v;
      return typeof first === 'string' ? first : undefined;
    };
    const callback: Callback = { param, cookies: fastifyCookie.parse(request.cookieHeader ?? '') };
    const stateValue = param('state');
    const state =
      stateValue === undefined || stateValue === '' || stateValue.length > 200
        ? undefined
        : await this.deps.store.connectStates.find(hashSecret(stateValue));
    // Whatever happens next, the browser's binding for this flow is spent, and so is the way back.
    const cleared = [oauthCookie(BACK_COOKIE, '', 0)];
    if (state) cleared.unshift(oauthCookie(bindingCookieName(state.bindingHash), '', 0));
    const answer =
      state === undefined
        ? page(400, FAILURES.state_missing)
        : state === null
          ? page(400, FAILURES.state_unknown)
          : await this.#callback(state, stateValue as string, callback);
    if (answer.kind !== 'page' || answer.content.tone !== 'fail') return this.sent(answer, cleared);
    const content = { ...answer.content, actions: wayBack(callback.cookies) };
    return this.sent({ ...answer, content }, cleared);
  }

  async #callback(state: ConnectState, stateValue: string, callback: Callback): Promise<FlowAnswer> {
    if (state.usedAt !== null) return page(400, FAILURES.state_replayed);
    if (Date.parse(state.expiresAt) <= this.deps.clock.now()) return page(400, FAILURES.state_expired);
    const binding = callback.cookies[bindingCookieName(state.bindingHash)];
    if (binding === undefined) return page(400, FAILURES.binding_missing);
    if (!sameHash(hashSecret(binding), state.bindingHash)) return page(400, FAILURES.binding_mismatch);
    if (!(await this.deps.store.connectStates.consume(state.id, this.#now()))) {
      return page(400, FAILURES.state_replayed);
    }
    const crmError = callback.param('error');
    if (crmError !== undefined) {
      const code = crmError.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 64);
      const said = (callback.param('error_description') ?? '').slice(0, 200);
      if (code === 'access_denied') return page(400, FAILURES.denied(said));
      return page(400, FAILURES.crm_error(code, said));
    }
    const code = callback.param('code');
    if (code === undefined || code === '' || code.length > 2048) return page(400, FAILURES.code_missing);
    try {
      return await this.#finish(state, stateValue, binding, code);
    } catch (err) {
      this.deps.logger?.error({ err, provider: state.provider }, 'connect flow failed');
      const message = err instanceof ApiError && err.status < 500 ? err.message : null;
      return page(500, FAILURES.internal(message));
    }
  }

  async #finish(state: ConnectState, stateValue: string, binding: string, code: string): Promise<FlowAnswer> {
    // The link may have expired or been revoked while its owner was on the consent page.
    const linkRefusal = await this.#linkRefusal(state);
    if (linkRefusal !== null) return linkRefusal;
    const { adapter, facet } = this.facet(state.provider);
    const target: ConnectTarget = { origin: state.loginUrl, sandbox: state.sandbox };
    const app = this.app(adapter, facet, target);
    const crm = adapter.profile.displayName;
    const exchange = await facet.exchangeCode(target, app, {
      code,
      redirectUri: this.redirectUri(),
      codeVerifier: pkceVerifier(binding, stateValue),
    });
    if (!exchange.ok) {
      return exchange.kind === 'invalid_grant'
        ? page(400, FAILURES.code_refused(crm, exchange.description))
        : page(502, FAILURES.exchange_failed(crm, exchange.description, exchange.status));
    }
    const check = await facet.checkGrant(target, exchange);
    if (!check.ok) return page(502, FAILURES.check_failed(crm, check.description));

    const credentials = grantCredentials(exchange.grant, exchange.grant);
    // CRMs with a host per account refresh at the login host that issued the token (test.salesforce.com …).
    const loginUrl = !target.sandbox && exchange.instanceUrl !== null ? target.origin : null;

    if (state.reconnectId !== null) {
      const existing = (await this.deps.connections.list()).find((c) => c.id === state.reconnectId);
      if (existing === undefined) return page(400, FAILURES.reconnect_gone(state.reconnectId));
      const account = { accountId: check.accountId, instanceUrl: exchange.instanceUrl, loginUrl };
      const outcome = await this.replaceCredentials(existing, credentials, account);
      if (outcome === 'other_account')
        return page(400, FAILURES.other_account(crm, existing, check.accountId ?? '?'));
      if (outcome !== 'updated') return page(400, FAILURES.reconnect_gone(existing.id));
      return this.#ended(state, existing, crm, check, true);
    }

    const created = await this.deps.connections.create({
      provider: state.provider,
      label: state.label,
      instanceUrl: exchange.instanceUrl,
      apiBaseUrl: target.sandbox ? target.origin : null,
      sandbox: target.sandbox,
      credentials,
      accountId: check.accountId,
      loginUrl,
    });
    if (!created.ok) return page(502, FAILURES.not_stored(crm, created.message));
    const connection = created.connection;
    if (
      state.linkId !== null &&
      !(await this.deps.store.connectLinks.consume(state.linkId, this.#now(), connection.id))
    ) {
      // Another browser finished the same link first, or it ended meanwhile: keep nothing.
      await this.deps.connections.remove(connection.id);
      return (await this.#linkRefusal(state)) ?? page(410, FAILURES.link_used);
    }
    return this.#ended(state, connection, crm, check, false);
  }

  #now(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }

  /** The answer when the flow's link can no longer be used (used, revoked, expired); null when it can. */
  async #linkRefusal(state: ConnectState): Promise<FlowAnswer | null> {
    if (state.linkId === null) return null;
    const link = await this.deps.store.connectLinks.find(state.linkId);
    const status = link === null ? 'used' : this.view(link).status;
    return status === 'active' ? null : page(410, FAILURES[`link_${status}`]);
  }

  /** Back to `returnTo` naming the connection (and an earlier one of its account), else the connected page. */
  async #ended(
    state: ConnectState,
    connection: Connection,
    crm: string,
    check: Extract<AccessCheckOutcome, { ok: true }>,
    reconnected: boolean,
  ): Promise<FlowAnswer> {
    this.deps.logger?.info(
      { connectionId: connection.id, provider: state.provider, link: state.linkId !== null },
      reconnected ? 'connection re-connected' : 'connection connected',
    );
    if (state.returnTo !== null) {
      const to = withParam(state.returnTo, reconnected ? 'reconnected' : 'connected', connection.id);
      const key = reconnected ? null : accountKey(connection);
      const twin =
        key === null
          ? undefined
          : (await this.deps.connections.list())
              .filter((c) => c.id !== connection.id && accountKey(c) === key)
              .sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0];
      return {
        kind: 'redirect',
        location: twin === undefined ? to : withParam(to, 'same_account_as', twin.id),
      };
    }
    return page(200, CONNECTED(crm, connection.label, check, reconnected), connection.id);
  }
}
