// What every part of the connect flow shares: settings, the redirect URL, the CRM and OAuth app of a
// flow, and the start of a flow.
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { ConnectionService } from '../connections/service.ts';
import type { Credentials } from '../connections/types.ts';
import type { BeginConnectInput, BeginConnectResult, SentAnswer } from '../domain/connect.ts';
import type { Connection, Provider } from '../domain/connection.ts';
import { ApiError } from '../errors/index.ts';
import type { Clock } from '../lib/clock.ts';
import type { ConnectFacet, ConnectTarget, CrmAdapter, OAuthClient } from '../providers/adapter.ts';
import type { Store } from '../store/types.ts';
import { appMissing, checkedLabel, type FlowAnswer, invalid, isLocalPath } from './answers.ts';
import { type Brand, brandedHeaders, PAGE_HEADERS, renderPage } from './pages.ts';
import {
  bindingCookieName,
  hashSecret,
  newSecret,
  oauthCookie,
  pkceChallenge,
  pkceVerifier,
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
  adapters: () => readonly CrmAdapter[];
  config: Config;
  clock: Pick<Clock, 'now'>;
  /** Sandbox CRMs started with the service: flows go to them unless a login host is chosen. */
  sandboxes?: Readonly<Record<Provider, SandboxCrm>> | undefined;
  /** Called after a re-connect replaced a connection's credentials (drop cached access tokens). */
  onCredentialsReplaced?: (connectionId: string) => void;
  logger?: Logger;
}

export class ConnectCore {
  readonly deps: ConnectServiceOptions;
  #listenBaseUrl: string;

  constructor(deps: ConnectServiceOptions) {
    this.deps = deps;
    const host = deps.config.host;
    const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    this.#listenBaseUrl = `http://${shown}:${deps.config.port}`;
  }

  /** The address the service really listens on (port 0 resolved); used when no public URL is set. */
  useListenAddress(baseUrl: string): void {
    this.#listenBaseUrl = baseUrl.replace(/\/+$/, '');
  }

  publicBaseUrl(): string {
    return this.deps.config.publicUrls[this.deps.config.region] ?? this.#listenBaseUrl;
  }

  /** The redirect URL to register in the CRM's app settings. */
  redirectUri(): string {
    return `${this.publicBaseUrl()}${CALLBACK_PATH}`;
  }

  /** Set-Cookie value tying the flow to the browser that started it (one cookie per flow). */
  bindingCookie(binding: string, secure: boolean): string {
    return oauthCookie(bindingCookieName(hashSecret(binding)), binding, STATE_TTL_MS / 1000, secure);
  }

  /** Which CRMs can be connected in a browser right now, and the variables each one still lacks. */
  providers() {
    return this.deps.adapters().flatMap((adapter) => {
      const facet = adapter.connect;
      if (facet === undefined) return [];
      const sandbox = this.deps.sandboxes?.[adapter.profile.id] !== undefined;
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

  /** Starts a flow (a connect link's, with `linkId`): stores its single-use state, answers the consent URL. */
  async begin(input: BeginConnectInput, linkId: string | null = null): Promise<BeginConnectResult> {
    const { facet, adapter } = this.facet(input.provider);
    const label = checkedLabel(input.label);
    const returnTo = input.returnTo ?? null;
    if (returnTo !== null && !isLocalPath(returnTo)) {
      throw invalid('returnTo', 'returnTo must be a path on this service, such as /console/connections');
    }
    let existing: Connection | null = null;
    if (input.reconnect !== undefined) {
      existing = (await this.deps.connections.list()).find((c) => c.id === input.reconnect) ?? null;
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
    const target = this.target(adapter, facet, input, existing);
    const app = this.app(adapter, facet, target);
    const state = newSecret();
    const binding = newSecret();
    const now = this.deps.clock.now();
    // Flows abandoned at the consent page leave their states behind: drop the long-expired ones.
    await this.deps.store.connectStates.prune(new Date(now - 24 * 3_600_000).toISOString());
    await this.deps.store.connectStates.insert({
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
      codeChallenge: pkceChallenge(pkceVerifier(binding, state)),
    });
    return { authorizeUrl, binding };
  }

  facet(provider: Provider): { adapter: CrmAdapter; facet: ConnectFacet } {
    const adapters = this.deps.adapters();
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

  target(
    adapter: CrmAdapter,
    facet: ConnectFacet,
    input: BeginConnectInput,
    existing: Connection | null,
  ): ConnectTarget {
    const sandbox = this.deps.sandboxes?.[adapter.profile.id];
    const wantsSandbox =
      existing !== null
        ? existing.sandbox
        : (input.sandbox ?? (input.loginHost === undefined && sandbox !== undefined));
    if (wantsSandbox) {
      if (input.loginHost !== undefined)
        throw invalid('loginHost', 'loginHost does not apply to a sandbox connection');
      // A re-connect stays with the sandbox at its connection's address.
      if (sandbox === undefined || (existing?.apiBaseUrl ?? sandbox.url) !== sandbox.url) {
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

  app(adapter: CrmAdapter, facet: ConnectFacet, target: ConnectTarget): OAuthClient {
    if (target.sandbox) {
      const sandbox = this.deps.sandboxes?.[adapter.profile.id];
      if (sandbox !== undefined) return sandbox;
    }
    const app = facet.configuredApp();
    if (app === null)
      throw appMissing(
        adapter.profile.displayName,
        facet.appVariables,
        this.deps.sandboxes?.[adapter.profile.id] !== undefined,
      );
    return app;
  }

  /** Replaces a connection's credentials unless they reach another account, and records what they reached. */
  async replaceCredentials(
    existing: Connection,
    credentials: Credentials,
    reached: { accountId: string | null; loginUrl?: string | null; instanceUrl?: string | null },
  ): Promise<'updated' | 'other_account' | 'not_found' | 'invalid'> {
    const { accountId } = reached;
    if (existing.accountId !== null && accountId !== null && existing.accountId !== accountId)
      return 'other_account';
    const outcome = await this.deps.connections.reauthorize(existing.id, credentials);
    if (outcome !== 'updated') return outcome;
    await this.deps.connections.setAccount(existing.id, {
      accountId: accountId ?? existing.accountId,
      loginUrl: reached.loginUrl ?? existing.loginUrl,
      instanceUrl: reached.instanceUrl ?? existing.instanceUrl,
    });
    this.deps.onCredentialsReplaced?.(existing.id);
    return 'updated';
  }

  /** Who the account owner's pages name: the configured service name, else the public URL's host. */
  brand(): Brand {
    const { serviceName, logoUrl } = this.deps.config.connect;
    return { name: serviceName ?? new URL(this.publicBaseUrl()).host, logoUrl: logoUrl ?? null };
  }

  /** The answer as the browser gets it: a page under the service's brand, its outcome in a header. */
  protected sent(answer: FlowAnswer, setCookies: string[] = []): SentAnswer {
    if (answer.kind === 'redirect') {
      const cookies = [...(answer.setCookies ?? []), ...setCookies];
      return { kind: 'redirect', location: answer.location, setCookies: cookies, headers: PAGE_HEADERS };
    }
    const brand = this.brand();
    const headers: Record<string, string> = {
      ...brandedHeaders(brand),
      'x-connect-outcome': answer.content.reason,
    };
    if (answer.connectionId !== undefined) headers['x-connect-connection'] = answer.connectionId;
    const html = renderPage(answer.content, brand);
    return { kind: 'page', status: answer.status, html, setCookies, headers };
  }
}
