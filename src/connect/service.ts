// The browser connect flow (OAuth 2.0 authorization-code grant) and one-time connect links. Generic:
// each CRM's consent URL, code exchange and check call come from its adapter's `connect` facet.
import type { CreateConnectionInput, Credentials } from '../connections/types.ts';
import { ApiError } from '../errors/index.ts';
import { FAILURES, type FlowAnswer, page } from './answers.ts';
import { CheckedConnections, type CheckedCreateResult } from './checked.ts';
import { FlowFinish } from './finish.ts';
import { BACK_COOKIE, wayBack } from './landing.ts';
import { ConnectLinks } from './links.ts';
import { bindingCookieName, hashSecret, oauthCookie, parseCookies, sameHash } from './secrets.ts';
import type { ConnectServiceOptions } from './types.ts';

export type { FlowAnswer } from './answers.ts';
export * from './types.ts';

/** The whole flow: its start and links (core.ts, links.ts), the callback, and pasted credentials. */
export class ConnectService extends ConnectLinks {
  readonly #checked: CheckedConnections;
  readonly #finisher: FlowFinish;

  constructor(opts: ConnectServiceOptions) {
    super(opts);
    this.#checked = new CheckedConnections(opts);
    this.#finisher = new FlowFinish(this);
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
    const cleared = [...answer.setCookies, oauthCookie(BACK_COOKIE, '', 0)];
    if (answer.kind !== 'page' || answer.content.tone !== 'fail')
      return this.branded({ ...answer, setCookies: cleared });
    const content = { ...answer.content, actions: wayBack(parseCookies(request.cookieHeader)) };
    return this.branded({ ...answer, content, setCookies: cleared });
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
      return await this.#finisher.finish(state, stateValue, binding, code, clear);
    } catch (err) {
      this.log?.error({ err, provider: state.provider }, 'connect flow failed');
      const message = err instanceof ApiError && err.status < 500 ? err.message : null;
      return page(500, FAILURES.internal(message), clear);
    }
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
