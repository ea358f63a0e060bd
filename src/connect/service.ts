// The browser connect flow (OAuth 2.0 authorization-code grant) and one-time connect links. Generic:
// each CRM's consent URL, code exchange and check call come from its adapter's `connect` facet.
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { ConnectionService } from '../connections/service.ts';
import type { CreateConnectionInput, Credentials } from '../connections/types.ts';
import { randomBase62 } from '../crypto/random.ts';
import type { Connection, Provider } from '../domain/connection.ts';
import { ApiError } from '../errors/index.ts';
import type { Clock } from '../lib/clock.ts';
import type {
  AccessCheckOutcome,
  ConnectFacet,
  ConnectTarget,
  CrmAdapter,
  OAuthClient,
} from '../providers/adapter.ts';
import type { ConnectLink, ConnectState, Store } from '../store/types.ts';
import { BACK_COOKIE, backCookie, landingPage, wayBack } from './landing.ts';
import { PAGE_HEADERS, type PageContent, renderPage } from './pages.ts';
import {
  bindingCookieName,
  hashSecret,
  newSecret,
  parseCookies,
  pkceChallenge,
  pkceVerifier,
  sameHash,
} from './secrets.ts';

/** How long a started flow may take, consent included. */
export const STATE_TTL_MS = 10 * 60_000;
export const CALLBACK_PATH = '/oauth/callback';
export const LINK_PATH = '/connect/';

/** A sandbox CRM running beside the service: where it listens and the OAuth client it registered. */
export interface SandboxCrm extends OAuthClient {
  url: string;
}

export interface ConnectServiceOptions {
  store: Store;
  connections: ConnectionService;
  /** The CRMs' adapters (their `connect` facets). */
  adapters: () => readonly CrmAdapter[];
  config: Config;
  clock: Pick<Clock, 'now'>;
  /** Sandbox CRMs started with the service: flows go to them unless a login host is chosen. */
  sandboxes?: Readonly<Record<Provider, SandboxCrm>> | undefined;
  /** Called after a re-connect replaced a connection's credentials (drop cached access tokens). */
  onCredentialsReplaced?: (connectionId: string) => void;
  logger?: Logger;
}

export interface BeginInput {
  provider: Provider;
  /** Salesforce: `login.salesforce.com`, `test.salesforce.com` or a My Domain https URL. */
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

export interface BeginResult {
  /** Where to send the browser: the CRM's consent page. */
  authorizeUrl: string;
  /** The browser binding: give it to the browser only through `bindingCookie`. */
  binding: string;
}

export interface LinkInput {
  provider: Provider;
  label?: string | null | undefined;
  loginHost?: string | undefined;
  /** Lifetime; default `CRM_PROXY_CONNECT_LINK_TTL_HOURS` (24 h). */
  ttlMs?: number | undefined;
  /** As in `begin`: the sandbox CRM (default when one runs and no login host is given) or the real one. */
  sandbox?: boolean | undefined;
}

export type LinkStatus = 'active' | 'used' | 'expired' | 'revoked';
export interface ConnectLinkView extends ConnectLink {
  status: LinkStatus;
}

/** How a browser request of the flow is answered: a page, or a redirect. Both carry PAGE_HEADERS. */
export type FlowAnswer =
  | { kind: 'redirect'; location: string; setCookies: string[]; headers: Readonly<Record<string, string>> }
  | {
      kind: 'page';
      status: number;
      html: string;
      /** Short machine-readable outcome (`connected`, `state_replayed`, …). */
      reason: string;
      /** What the page says (rendered into `html`). */
      content: PageContent;
      setCookies: string[];
      headers: Readonly<Record<string, string>>;
    };

export type CheckedCreateResult =
  | { ok: true; connection: Connection; checked: boolean; user: string | null }
  | { ok: false; message: string };

const LABEL_MAX = 200;
const RETURN_TO_MAX = 500;

export class ConnectService {
  readonly #store: Store;
  readonly #connections: ConnectionService;
  readonly #adapters: () => readonly CrmAdapter[];
  readonly #config: Config;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #sandboxes: Readonly<Record<Provider, SandboxCrm>> | undefined;
  readonly #onReplaced: (connectionId: string) => void;
  readonly #log: Logger | undefined;
  #listenBaseUrl: string;

  constructor(opts: ConnectServiceOptions) {
    this.#store = opts.store;
    this.#connections = opts.connections;
    this.#adapters = opts.adapters;
    this.#config = opts.config;
    this.#clock = opts.clock;
    this.#sandboxes = opts.sandboxes;
    this.#onReplaced = opts.onCredentialsReplaced ?? (() => {});
    this.#log = opts.logger;
    const host = opts.config.host;
    const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    this.#listenBaseUrl = `http://${shown}:${opts.config.port}`;
  }

  /** The address the service really listens on (port 0 resolved); used when no public URL is set. */
  useListenAddress(baseUrl: string): void {
    this.#listenBaseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** `<public base URL of the region>`, else the address the service listens on. */
  publicBaseUrl(): string {
    return this.#config.publicUrls[this.#config.region] ?? this.#listenBaseUrl;
  }

  /** The redirect URL to register in the CRM's app settings. */
  redirectUri(): string {
    return `${this.publicBaseUrl()}${CALLBACK_PATH}`;
  }

  /** Starts a flow: stores its single-use state and answers the CRM's consent URL. */
  begin(input: BeginInput): Promise<BeginResult> {
    return this.#begin(input, null);
  }

  /**
   * Set-Cookie value tying the flow to the browser that started it. SameSite=Lax: the callback is
   * a top-level navigation coming from the CRM's site, which a Strict cookie would not follow.
   */
  bindingCookie(binding: string, secure: boolean): string {
    return `${bindingCookieName(hashSecret(binding))}=${binding}; Path=/oauth; Max-Age=${STATE_TTL_MS / 1000}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }

  /** Which CRMs can be connected in a browser right now, and the variables each one still lacks. */
  providers(): Array<{
    provider: Provider;
    displayName: string;
    ready: boolean;
    missing: string[];
    sandbox: boolean;
  }> {
    return this.#adapters().flatMap((adapter) => {
      const facet = adapter.connect;
      if (facet === undefined) return [];
      const sandbox = this.#sandboxes?.[adapter.profile.id] !== undefined;
      const configured = facet.configuredApp() !== null;
      return [
        {
          provider: adapter.profile.id,
          displayName: adapter.profile.displayName,
          ready: configured || sandbox,
          missing: configured ? [] : [...facet.appVariables],
          sandbox,
        },
      ];
    });
  }

  async #begin(input: BeginInput, linkId: string | null): Promise<BeginResult> {
    const { facet, adapter } = this.#facet(input.provider);
    const label = input.label ?? null;
    if (label !== null && (typeof label !== 'string' || label.length > LABEL_MAX)) {
      throw invalid('label', `label must be text of at most ${LABEL_MAX} characters`);
    }
    const returnTo = input.returnTo ?? null;
    if (returnTo !== null && !isLocalPath(returnTo)) {
      throw invalid('returnTo', 'returnTo must be a path on this service, such as /console/connections');
    }
    let existing: Connection | null = null;
    if (input.reconnect !== undefined) {
      existing = (await this.#connections.list()).find((c) => c.id === input.reconnect) ?? null;
      if (existing === null) {
        throw new ApiError(
          'not_found',
          `There is no connection ${String(input.reconnect).slice(0, 60)} to re-connect.`,
        );
      }
      if (existing.provider !== input.provider) {
        throw invalid(
          'provider',
          `connection ${existing.id} is a ${existing.provider} connection; re-connect it with provider "${existing.provider}"`,
        );
      }
    }
    const target = this.#target(adapter, facet, input, existing);
    const app = this.#app(adapter, facet, target);
    const state = newSecret();
    const binding = newSecret();
    const verifier = facet.pkce ? pkceVerifier(binding, state) : null;
    const now = this.#clock.now();
    // Flows abandoned at the consent page leave their states behind: drop the long-expired ones.
    await this.#store.connectStates.prune(new Date(now - 24 * 3_600_000).toISOString());
    await this.#store.connectStates.insert({
      id: hashSecret(state),
      provider: input.provider,
      loginUrl: target.origin,
      sandbox: target.sandbox,
      label,
      reconnectId: existing?.id ?? null,
      linkId,
      returnTo,
      bindingHash: hashSecret(binding),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + STATE_TTL_MS).toISOString(),
    });
    const authorizeUrl = facet.authorizeUrl(target, {
      clientId: app.clientId,
      redirectUri: this.redirectUri(),
      state,
      codeChallenge: verifier === null ? null : pkceChallenge(verifier),
    });
    return { authorizeUrl, binding };
  }

  #facet(provider: Provider): { adapter: CrmAdapter; facet: ConnectFacet } {
    const adapters = this.#adapters();
    const adapter = adapters.find((a) => a.profile.id === provider);
    if (adapter === undefined) {
      throw invalid('provider', `provider must be ${adapters.map((a) => `"${a.profile.id}"`).join(' or ')}`);
    }
    if (adapter.connect === undefined) {
      throw invalid(
        'provider',
        `${adapter.profile.displayName} has no browser connect flow; add its connections with the CLI`,
      );
    }
    return { adapter, facet: adapter.connect };
  }

  #target(
    adapter: CrmAdapter,
    facet: ConnectFacet,
    input: BeginInput,
    existing: Connection | null,
  ): ConnectTarget {
    const sandbox = this.#sandboxes?.[adapter.profile.id];
    const wantsSandbox =
      existing !== null
        ? existing.sandbox
        : (input.sandbox ?? (input.loginHost === undefined && sandbox !== undefined));
    if (wantsSandbox) {
      if (input.loginHost !== undefined)
        throw invalid('loginHost', 'loginHost does not apply to a sandbox connection');
      const url = existing?.apiBaseUrl ?? sandbox?.url;
      if (sandbox === undefined || url === undefined || url !== sandbox.url) {
        throw new ApiError(
          'service_unavailable',
          `No ${adapter.profile.displayName} sandbox runs with this service${existing === null ? '' : " at this connection's address"}; start the service in sandbox mode (npm start) to connect it.`,
        );
      }
      return { origin: sandbox.url, sandbox: true };
    }
    const origin = facet.loginOrigin(input.loginHost ?? existing?.loginUrl ?? undefined);
    if (!origin.ok) throw invalid('loginHost', origin.message);
    return { origin: origin.origin, sandbox: false };
  }

  #app(adapter: CrmAdapter, facet: ConnectFacet, target: ConnectTarget): OAuthClient {
    if (target.sandbox) {
      const sandbox = this.#sandboxes?.[adapter.profile.id];
      if (sandbox !== undefined) return sandbox;
    }
    const app = facet.configuredApp();
    if (app === null)
      throw appMissing(
        adapter.profile.displayName,
        facet.appVariables,
        this.#sandboxes?.[adapter.profile.id] !== undefined,
      );
    return app;
  }

  /**
   * `GET /oauth/callback`: checks the state and the browser, exchanges the code, checks the grant,
   * stores. A page that ends the flow without a connection offers a way back.
   */
  async complete(request: {
    query: Record<string, unknown>;
    cookieHeader: string | undefined;
  }): Promise<FlowAnswer> {
    const answer = await this.#complete(request);
    const cleared = [...answer.setCookies, `${BACK_COOKIE}=; Path=/oauth; Max-Age=0; HttpOnly; SameSite=Lax`];
    if (answer.kind !== 'page' || answer.content.tone !== 'fail') return { ...answer, setCookies: cleared };
    const content = { ...answer.content, actions: wayBack(parseCookies(request.cookieHeader)) };
    return { ...answer, content, html: renderPage(content), setCookies: cleared };
  }

  async #complete(request: {
    query: Record<string, unknown>;
    cookieHeader: string | undefined;
  }): Promise<FlowAnswer> {
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
    const state = await this.#store.connectStates.find(stateId);
    if (state === null) return page(400, FAILURES.state_unknown, []);
    const cookieName = bindingCookieName(state.bindingHash);
    // Whatever happens next, the browser's binding for this flow is spent.
    const clear = [`${cookieName}=; Path=/oauth; Max-Age=0; HttpOnly; SameSite=Lax`];
    if (state.usedAt !== null) return page(400, FAILURES.state_replayed, clear);
    if (Date.parse(state.expiresAt) <= this.#clock.now()) return page(400, FAILURES.state_expired, clear);
    const binding = parseCookies(request.cookieHeader).get(cookieName);
    if (binding === undefined) return page(400, FAILURES.binding_missing, clear);
    if (!sameHash(hashSecret(binding), state.bindingHash)) return page(400, FAILURES.binding_mismatch, clear);
    if (!(await this.#store.connectStates.consume(stateId, this.#nowIso()))) {
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
      this.#log?.error({ err, provider: state.provider }, 'connect flow failed');
      const message = err instanceof ApiError && err.status < 500 ? err.message : null;
      return page(500, FAILURES.internal(message), clear);
    }
  }

  async #finish(
    state: ConnectState,
    stateValue: string,
    binding: string,
    code: string,
    clear: string[],
  ): Promise<FlowAnswer> {
    const { adapter, facet } = this.#facet(state.provider);
    const target: ConnectTarget = { origin: state.loginUrl, sandbox: state.sandbox };
    const app = this.#app(adapter, facet, target);
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
      const existing = (await this.#connections.list()).find((c) => c.id === state.reconnectId);
      if (existing === undefined) return page(400, FAILURES.reconnect_gone(state.reconnectId), clear);
      if (existing.accountId !== null && check.accountId !== null && existing.accountId !== check.accountId) {
        return page(400, FAILURES.other_account(crm, existing, check.accountId), clear);
      }
      const outcome = await this.#connections.reauthorize(existing.id, credentials);
      if (outcome !== 'updated') return page(400, FAILURES.reconnect_gone(existing.id), clear);
      await this.#connections.setAccount(existing.id, {
        accountId: check.accountId ?? existing.accountId,
        loginUrl: loginUrl ?? existing.loginUrl,
        instanceUrl: exchange.instanceUrl ?? existing.instanceUrl,
      });
      this.#onReplaced(existing.id);
      this.#log?.info({ connectionId: existing.id, provider: state.provider }, 'connection re-connected');
      if (state.returnTo !== null)
        return redirect(withParam(state.returnTo, 'reconnected', existing.id), clear);
      return page(200, CONNECTED(crm, existing.id, existing.label, facts, true), clear);
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
    const created = await this.#connections.create(input);
    if (!created.ok) return page(502, FAILURES.not_stored(crm, created.message), clear);
    const connection = created.connection;
    if (
      state.linkId !== null &&
      !(await this.#store.connectLinks.consume(state.linkId, this.#nowIso(), connection.id))
    ) {
      // Another browser finished the same link first, or it was revoked meanwhile: keep nothing.
      await this.#connections.remove(connection.id);
      return page(410, FAILURES.link_spent, clear);
    }
    return this.#connected(state, connection, crm, facts, clear);
  }

  /** The answer for a new connection; one to an account already connected is flagged with the first. */
  async #connected(
    state: ConnectState,
    connection: Connection,
    crm: string,
    facts: Array<[string, string]>,
    clear: string[],
  ): Promise<FlowAnswer> {
    this.#log?.info(
      { connectionId: connection.id, provider: state.provider, link: state.linkId !== null },
      'connection connected',
    );
    // The same account connected before: flagged, with the earlier connection, not refused.
    const twin = (await this.#connections.list()).find(
      (c) =>
        c.id !== connection.id &&
        c.provider === connection.provider &&
        c.accountId !== null &&
        c.accountId === connection.accountId,
    );
    if (state.returnTo !== null) {
      const to = withParam(state.returnTo, 'connected', connection.id);
      return redirect(twin === undefined ? to : withParam(to, 'same_account_as', twin.id), clear);
    }
    const twinFact: Array<[string, string]> = twin === undefined ? [] : [['Already connected as', twin.id]];
    return page(200, CONNECTED(crm, connection.id, connection.label, [...facts, ...twinFact], false), clear);
  }

  /** Creates a one-time connect link; only a hash of its secret is stored. */
  async createLink(
    input: LinkInput,
  ): Promise<{ id: string; url: string; expiresAt: string; link: ConnectLinkView }> {
    const { adapter, facet } = this.#facet(input.provider);
    const label = input.label ?? null;
    if (label !== null && (typeof label !== 'string' || label.length > LABEL_MAX)) {
      throw invalid('label', `label must be text of at most ${LABEL_MAX} characters`);
    }
    const ttlMs = input.ttlMs ?? this.#config.connect.linkTtlMs;
    if (!Number.isFinite(ttlMs) || ttlMs < 60_000 || ttlMs > 30 * 86_400_000) {
      throw invalid('ttl', 'a link must live between 1 minute and 30 days');
    }
    // Refuse now what would fail when the link is opened: an unknown login host, a missing app.
    const target = this.#target(
      adapter,
      facet,
      { provider: input.provider, loginHost: input.loginHost, sandbox: input.sandbox },
      null,
    );
    this.#app(adapter, facet, target);
    const secret = newSecret();
    const now = this.#clock.now();
    const link = await this.#store.connectLinks.insert({
      id: `cl_${randomBase62(16)}`,
      secretHash: hashSecret(secret),
      provider: input.provider,
      label,
      loginUrl: target.sandbox ? null : target.origin,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + ttlMs).toISOString(),
    });
    return {
      id: link.id,
      url: `${this.publicBaseUrl()}${LINK_PATH}${secret}`,
      expiresAt: link.expiresAt,
      link: this.#view(link),
    };
  }

  async listLinks(): Promise<ConnectLinkView[]> {
    return (await this.#store.connectLinks.list()).map((l) => this.#view(l));
  }

  /** 'revoked', or why not: 'not_found', or 'used' / 'revoked' when it already was. */
  async revokeLink(id: string): Promise<'revoked' | 'not_found' | 'used' | 'already_revoked'> {
    if (await this.#store.connectLinks.revoke(id, this.#nowIso())) return 'revoked';
    const link = await this.#store.connectLinks.find(id);
    if (link === null) return 'not_found';
    return link.usedAt !== null ? 'used' : 'already_revoked';
  }

  /**
   * `GET /connect/:secret`: checks the link, then answers our landing page (who asks, for which CRM,
   * what will be shared); with `proceed` (its Continue button) sends the browser to the consent page.
   */
  async openLink(secret: string, secure: boolean, proceed = false): Promise<FlowAnswer> {
    const link =
      secret.length > 0 && secret.length <= 100
        ? await this.#store.connectLinks.findBySecretHash(hashSecret(secret))
        : null;
    if (link === null) return page(404, FAILURES.link_unknown, []);
    const status = this.#view(link).status;
    if (status === 'used') return page(410, FAILURES.link_used, []);
    if (status === 'revoked') return page(410, FAILURES.link_revoked, []);
    if (status === 'expired') return page(410, FAILURES.link_expired, []);
    if (!proceed) {
      const { adapter } = this.#facet(link.provider);
      const landing = landingPage({
        crm: adapter.profile.displayName,
        service: new URL(this.publicBaseUrl()).host,
        label: link.label,
        expiresAt: link.expiresAt,
        continueHref: `${LINK_PATH}${secret}?continue=1`,
      });
      return page(200, landing, []);
    }
    try {
      const started = await this.#begin(
        {
          provider: link.provider,
          label: link.label,
          ...(link.loginUrl === null ? { sandbox: true } : { loginHost: link.loginUrl, sandbox: false }),
        },
        link.id,
      );
      return redirect(started.authorizeUrl, [
        this.bindingCookie(started.binding, secure),
        backCookie(`${LINK_PATH}${secret}`, secure),
      ]);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return page(503, FAILURES.link_cannot_start(err.message), []);
    }
  }

  /**
   * Adds a connection from pasted credentials (the CLI) after one authenticated call proves they
   * work. OAuth credentials need the CRM's OAuth app (refresh); its absence is refused up front.
   */
  async createChecked(
    input: CreateConnectionInput,
    options: { check: boolean },
  ): Promise<CheckedCreateResult> {
    const problem = this.#connections.validate(input);
    if (problem !== null) return { ok: false, message: problem };
    const probe: Connection = {
      id: 'conn_check',
      provider: input.provider,
      region: this.#config.region,
      label: null,
      instanceUrl: input.instanceUrl ?? null,
      apiBaseUrl: input.apiBaseUrl ?? null,
      sandbox: input.sandbox ?? false,
      status: 'active',
      statusReason: null,
      credentialsVersion: 1,
      createdAt: this.#nowIso(),
      updatedAt: this.#nowIso(),
      accountId: null,
      loginUrl: input.loginUrl ?? null,
    };
    const checked = await this.#checkCredentials(probe, input.credentials, options.check, 'stored');
    if (!checked.ok) return checked;
    const created = await this.#connections.create({
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
  async reauthorizeChecked(
    id: string,
    credentials: Credentials,
    options: { check: boolean },
  ): Promise<CheckedCreateResult> {
    const existing = (await this.#connections.list()).find((c) => c.id === id);
    if (existing === undefined) return { ok: false, message: `No connection ${id}.` };
    const checked = await this.#checkCredentials(existing, credentials, options.check, 'changed');
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
    const outcome = await this.#connections.reauthorize(id, checked.credentials);
    if (outcome === 'not_found') return { ok: false, message: `No connection ${id}.` };
    if (outcome === 'invalid') return { ok: false, message: 'These credentials do not fit this connection.' };
    if (checked.accountId !== null && existing.accountId === null) {
      await this.#connections.setAccount(id, {
        accountId: checked.accountId,
        loginUrl: existing.loginUrl,
        instanceUrl: existing.instanceUrl,
      });
    }
    this.#onReplaced(id);
    const connection = (await this.#connections.list()).find((c) => c.id === id) ?? existing;
    return { ok: true, connection, checked: checked.checked, user: checked.user };
  }

  /**
   * The OAuth app must exist for a refresh token (refused up front, naming its variables); with
   * `check`, one refresh and one authenticated call prove the credentials and name the account.
   */
  async #checkCredentials(
    connection: Connection,
    credentials: Credentials,
    check: boolean,
    verb: 'stored' | 'changed',
  ): Promise<
    | { ok: true; credentials: Credentials; accountId: string | null; user: string | null; checked: boolean }
    | { ok: false; message: string }
  > {
    const adapter = this.#adapters().find((a) => a.profile.id === connection.provider);
    if (adapter === undefined)
      return { ok: false, message: `provider "${connection.provider}" is not supported` };
    const facet = adapter.connect;
    const sandbox = connection.sandbox ? this.#sandboxes?.[connection.provider] : undefined;
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
              ? `${crm} refused the refresh token (${refreshed.description.slice(0, 200)}); nothing was ${verb}. Get a new one, or connect the account in a browser: crm-proxy connect-link create --provider ${connection.provider}`
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

  #view(link: ConnectLink): ConnectLinkView {
    const status: LinkStatus =
      link.usedAt !== null
        ? 'used'
        : link.revokedAt !== null
          ? 'revoked'
          : Date.parse(link.expiresAt) <= this.#clock.now()
            ? 'expired'
            : 'active';
    return { ...link, status };
  }

  #nowIso(): string {
    return new Date(this.#clock.now()).toISOString();
  }
}

function invalid(field: string, message: string): ApiError {
  return new ApiError('invalid_value', message, { details: [{ field, message }] });
}

function appMissing(crm: string, variables: readonly string[], sandboxRuns = false): ApiError {
  // In sandbox mode a login host is what turned the request towards a real account.
  const sandboxHint = sandboxRuns
    ? ` The ${crm} sandbox needs no app and has no login host: leave out the login host (--login-host, login_host) to connect the sandbox instead.`
    : '';
  return new ApiError(
    'service_unavailable',
    `Real ${crm} accounts cannot be connected: the service has no ${crm} OAuth app. Set ${variables.join(' and ')} (see the README, "Connecting a real Salesforce or HubSpot account") and restart the service.${sandboxHint}`,
    { details: variables.map((name) => ({ variable: name, set: false })) },
  );
}

/** A path on this service: one leading slash, no scheme or host, no backslash or control character. */
function isLocalPath(value: string): boolean {
  return (
    typeof value === 'string' &&
    value.length <= RETURN_TO_MAX &&
    value.startsWith('/') &&
    !value.startsWith('//') &&
    // Printable ASCII only: no backslash (browsers read it as a slash), no space or control character.
    /^[\x21-\x5b\x5d-\x7e]+$/.test(value)
  );
}

function withParam(path: string, name: string, value: string): string {
  const url = new URL(path, 'http://local');
  url.searchParams.set(name, value);
  return `${url.pathname}${url.search}${url.hash}`;
}

function accountFacts(
  crm: string,
  check: Extract<AccessCheckOutcome, { ok: true }>,
): Array<[string, string]> {
  const facts: Array<[string, string]> = [];
  if (check.accountId !== null) facts.push([`${crm} account`, check.accountId]);
  if (check.user !== null) facts.push(['Signed in as', check.user]);
  return facts;
}

function page(status: number, content: PageContent, setCookies: string[]): FlowAnswer {
  return {
    kind: 'page',
    status,
    html: renderPage(content),
    reason: content.reason,
    content,
    setCookies,
    headers: { ...PAGE_HEADERS, 'x-connect-outcome': content.reason },
  };
}

function redirect(location: string, setCookies: string[]): FlowAnswer {
  return { kind: 'redirect', location, setCookies, headers: PAGE_HEADERS };
}

const START_AGAIN =
  'Start again from the crm-proxy console (Connect), or ask the operator for a new connect link. Nothing was created.';

function CONNECTED(
  crm: string,
  id: string,
  label: string | null,
  facts: Array<[string, string]>,
  reconnected: boolean,
): PageContent {
  return {
    tone: 'ok',
    title: reconnected ? `${crm} re-connected` : `${crm} connected`,
    what: reconnected
      ? `The connection's credentials were replaced; its API tokens keep working.`
      : `The ${crm} account is connected to crm-proxy.`,
    facts: [
      ['Connection', id],
      ...(label === null ? [] : ([['Label', label]] as Array<[string, string]>)),
      ...facts,
    ],
    next: reconnected
      ? 'You can close this window.'
      : 'You can close this window. The operator can now create an API token for this connection.',
    reason: reconnected ? 'reconnected' : 'connected',
  };
}

const fail = (reason: string, title: string, what: string, next = START_AGAIN): PageContent => ({
  tone: 'fail',
  title,
  what,
  next,
  reason,
});

const FAILURES = {
  state_missing: fail(
    'state_missing',
    'This sign-in did not come from crm-proxy',
    'The address has no state parameter, so it cannot be matched to a connect flow started here.',
  ),
  state_unknown: fail(
    'state_unknown',
    'Unknown or forged sign-in',
    'The state parameter matches no connect flow started by this service. It may have been altered, or the flow was started by another deployment.',
  ),
  state_replayed: fail(
    'state_replayed',
    'This sign-in was already used',
    'Each connect flow can finish only once, and this one already has (the page was reloaded, or the address was opened twice).',
    'If the account is not connected yet, start again from the console or the connect link. Nothing new was created.',
  ),
  state_expired: fail(
    'state_expired',
    'The sign-in took too long',
    'A connect flow must finish within 10 minutes of starting, and this one expired.',
  ),
  binding_missing: fail(
    'binding_missing',
    'Finish in the browser you started in',
    'The flow was started in another browser (or its cookies were cleared or blocked), so this browser cannot finish it.',
    'Open the console or the connect link again in this browser, with cookies allowed for this site. Nothing was created.',
  ),
  binding_mismatch: fail(
    'binding_mismatch',
    'This sign-in belongs to another browser session',
    'The browser session that finished the flow is not the one that started it.',
  ),
  code_missing: fail(
    'code_missing',
    'The CRM sent no authorization code',
    'The answer from the CRM has neither a code nor an error.',
  ),
  denied: (said: string) =>
    fail(
      'access_denied',
      'Access was not granted',
      `The CRM's consent page was declined, so crm-proxy got no access.${said === '' ? '' : ` The CRM said: “${said}”.`}`,
      'To connect the account, start again and choose Allow on the consent page. Nothing was created.',
    ),
  crm_error: (code: string, said: string) => ({
    ...fail(
      'crm_error',
      'The CRM refused the sign-in',
      `The CRM answered with the error “${code}”${said === '' ? '' : `: “${said}”`}.`,
      'Check the app settings in the CRM (the redirect URL must be exactly this service’s /oauth/callback, and the scopes must be allowed), then start again. Nothing was created.',
    ),
    facts: [['CRM error', code]] as const,
  }),
  code_refused: (crm: string, said: string) =>
    fail(
      'code_refused',
      'The authorization code was refused',
      `${crm} refused the authorization code: it was already used, has expired, or was issued to another app or another sign-in (${said}).`,
    ),
  exchange_failed: (crm: string, said: string, status: number | undefined) =>
    fail(
      'exchange_failed',
      `${crm} did not complete the sign-in`,
      `Exchanging the authorization code at ${crm}'s token endpoint failed${status === undefined ? '' : ` (status ${status})`}: ${said}.`,
      `Check the OAuth app's client id and secret and that ${crm} is reachable, then start again. Nothing was created.`,
    ),
  check_failed: (crm: string, said: string) =>
    fail(
      'check_failed',
      `The new ${crm} connection could not make a call`,
      `The sign-in worked, but the check call with the new credentials failed: ${said}.`,
      `Check that the ${crm} user may use the API and that the app has the scopes the README lists, then start again. Nothing was created.`,
    ),
  other_account: (crm: string, existing: Connection, got: string) => ({
    ...fail(
      'other_account',
      `That is another ${crm} account`,
      `Connection ${existing.id} belongs to account ${existing.accountId ?? '?'}, but the sign-in was for account ${got}. Its credentials were not changed.`,
      `Re-connect while signed in to the same ${crm} account, or connect the other account as a new connection.`,
    ),
  }),
  reconnect_gone: (id: string) =>
    fail('reconnect_gone', 'The connection is gone', `Connection ${id} was removed while the flow ran.`),
  not_stored: (crm: string, said: string) =>
    fail('not_stored', `The ${crm} connection could not be stored`, said),
  link_spent: fail(
    'link_used',
    'This connect link was already used',
    'Another sign-in finished with this link first, or it was revoked meanwhile.',
    'Ask the operator for a new connect link. Nothing was created.',
  ),
  link_unknown: fail(
    'link_unknown',
    'This connect link is not valid',
    'No connect link has this address. It may have been copied incompletely.',
    'Check the address, or ask the operator for a new connect link.',
  ),
  link_used: fail(
    'link_used',
    'This connect link was already used',
    'A connect link works once, and an account was already connected with this one.',
    'If you need to connect again, ask the operator for a new connect link.',
  ),
  link_revoked: fail(
    'link_revoked',
    'This connect link was revoked',
    'The operator withdrew this link.',
    'Ask the operator for a new connect link.',
  ),
  link_expired: fail(
    'link_expired',
    'This connect link has expired',
    'Connect links work for a limited time, and this one is past it.',
    'Ask the operator for a new connect link.',
  ),
  link_cannot_start: (message: string) =>
    fail(
      'link_cannot_start',
      'The connection cannot start',
      message,
      'Tell the operator who sent you the link.',
    ),
  internal: (message: string | null) =>
    fail(
      'internal_error',
      'Something went wrong',
      message ??
        'crm-proxy could not finish the connection because of an internal error (its log has the details).',
    ),
};
