// The browser connect flow (OAuth 2.0 authorization-code grant) and one-time connect links. Generic:
// each CRM's consent URL, code exchange and check call come from its adapter's `connect` facet.
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { ConnectionService } from '../connections/service.ts';
import type { CreateConnectionInput, Credentials } from '../connections/types.ts';
import type { Connection, Provider } from '../domain/connection.ts';
import { ApiError } from '../errors/index.ts';
import type { Clock } from '../lib/clock.ts';
import type { ConnectFacet, ConnectTarget, CrmAdapter, OAuthClient } from '../providers/adapter.ts';
import type { Store } from '../store/types.ts';
import {
  appMissing,
  checkedLabel,
  FAILURES,
  type FlowAnswer,
  invalid,
  isLocalPath,
  page,
} from './answers.ts';
import { BACK_COOKIE, wayBack } from './landing.ts';

export type { FlowAnswer } from './answers.ts';

import { CheckedConnections, type CheckedCreateResult } from './checked.ts';
import { FlowFinish } from './finish.ts';
import { ConnectLinks, type ConnectLinkView, type LinkInput } from './links.ts';
import { type Brand, brandedHeaders, renderPage } from './pages.ts';
import {
  bindingCookieName,
  hashSecret,
  newSecret,
  parseCookies,
  pkceChallenge,
  pkceVerifier,
  sameHash,
} from './secrets.ts';

import {
  type BeginInput,
  type BeginResult,
  CALLBACK_PATH,
  type ConnectServiceOptions,
  type SandboxCrm,
  STATE_TTL_MS,
} from './types.ts';

export * from './types.ts';

export class ConnectService {
  readonly #store: Store;
  readonly #connections: ConnectionService;
  readonly #adapters: () => readonly CrmAdapter[];
  readonly #config: Config;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #sandboxes: Readonly<Record<Provider, SandboxCrm>> | undefined;
  readonly #onReplaced: (connectionId: string) => void;
  readonly #log: Logger | undefined;
  readonly #checked: CheckedConnections;
  readonly #links: ConnectLinks;
  readonly #finisher: FlowFinish;
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
    this.#checked = new CheckedConnections(opts);
    this.#finisher = new FlowFinish({
      store: opts.store,
      connections: opts.connections,
      clock: opts.clock,
      log: opts.logger,
      onReplaced: (id) => this.#onReplaced(id),
      facet: (provider) => this.#facet(provider),
      app: (adapter, facet, target) => this.#app(adapter, facet, target),
      redirectUri: () => this.redirectUri(),
    });
    this.#links = new ConnectLinks({
      store: opts.store,
      config: opts.config,
      clock: opts.clock,
      publicBaseUrl: () => this.publicBaseUrl(),
      facet: (provider) => this.#facet(provider),
      checkStart: (adapter, facet, input) => {
        const target = this.#target(adapter, facet, input, null);
        this.#app(adapter, facet, target);
        return target;
      },
      begin: (input, linkId) => this.begin(input, linkId),
      bindingCookie: (binding, secure) => this.bindingCookie(binding, secure),
    });
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

  /**
   * Starts a flow (a connect link's, with `linkId`): stores its single-use state and answers the
   * CRM's consent URL.
   */
  async begin(input: BeginInput, linkId: string | null = null): Promise<BeginResult> {
    const { facet, adapter } = this.#facet(input.provider);
    const label = checkedLabel(input.label);
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
          `There is no connection ${String(input.reconnect).slice(0, 60)} to reconnect.`,
        );
      }
      if (existing.provider !== input.provider) {
        throw invalid(
          'provider',
          `connection ${existing.id} is a ${existing.provider} connection; reconnect it with provider "${existing.provider}"`,
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
    if (answer.kind !== 'page' || answer.content.tone !== 'fail')
      return this.#branded({ ...answer, setCookies: cleared });
    const content = { ...answer.content, actions: wayBack(parseCookies(request.cookieHeader)) };
    return this.#branded({ ...answer, content, setCookies: cleared });
  }

  /** Who the account owner's pages name: the configured service name, else the public URL's host. */
  brand(): Brand {
    const { serviceName, logoUrl } = this.#config.connect;
    return { name: serviceName ?? new URL(this.publicBaseUrl()).host, logoUrl: logoUrl ?? null };
  }

  /** A page with the service's name and logo on top (and the logo's origin allowed by its CSP). */
  #branded(answer: FlowAnswer): FlowAnswer {
    if (answer.kind !== 'page') return answer;
    const brand = this.brand();
    return {
      ...answer,
      html: renderPage(answer.content, brand),
      headers: { ...answer.headers, ...brandedHeaders(brand) },
    };
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
    if (!(await this.#store.connectStates.consume(stateId, new Date(this.#clock.now()).toISOString()))) {
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
      return await this.#finisher.finish(state, stateValue, binding, code, clear);
    } catch (err) {
      this.#log?.error({ err, provider: state.provider }, 'connect flow failed');
      const message = err instanceof ApiError && err.status < 500 ? err.message : null;
      return page(500, FAILURES.internal(message), clear);
    }
  }

  /** Creates a one-time connect link; only a hash of its secret is stored (links.ts). */
  createLink(
    input: LinkInput,
  ): Promise<{ id: string; url: string; expiresAt: string; link: ConnectLinkView }> {
    return this.#links.create(input);
  }

  listLinks(): Promise<ConnectLinkView[]> {
    return this.#links.list();
  }

  revokeLink(id: string): Promise<'revoked' | 'not_found' | 'used' | 'already_revoked'> {
    return this.#links.revoke(id);
  }

  /** `GET /connect/:secret`: the link's landing page, or with `proceed` the CRM's consent page (links.ts). */
  async openLink(secret: string, secure: boolean, proceed = false): Promise<FlowAnswer> {
    return this.#branded(await this.#links.open(secret, secure, proceed));
  }

  /** Adds a connection from pasted credentials (the CLI), after a check call (checked.ts). */
  createChecked(input: CreateConnectionInput, options: { check: boolean }): Promise<CheckedCreateResult> {
    return this.#checked.create(input, options);
  }

  /** Replaces a connection's credentials with pasted ones, after the same check (checked.ts). */
  reauthorizeChecked(
    id: string,
    credentials: Credentials,
    options: { check: boolean },
  ): Promise<CheckedCreateResult> {
    return this.#checked.reauthorize(id, credentials, options);
  }
}
