// The connect flow's settings, inputs and limits, shared by its parts (service, links, checks).
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { ConnectionService } from '../connections/service.ts';
import type { Provider } from '../domain/connection.ts';
import type { Clock } from '../lib/clock.ts';
import type { CrmAdapter, OAuthClient } from '../providers/adapter.ts';
import type { Store } from '../store/types.ts';

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
  /** The login host an operator chose, for a CRM that offers a choice (its `loginOrigin` checks it). */
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

export const LABEL_MAX = 200;
