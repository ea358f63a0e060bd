// One-time connect links: an operator creates one and hands it to the account owner, whose browser
// opens it, sees who asks for what, and goes on to the CRM's consent page.
import { randomBase62 } from '../crypto/random.ts';
import type { Provider } from '../domain/connection.ts';
import { ApiError } from '../errors/index.ts';
import type { ConnectLink } from '../store/types.ts';
import { checkedLabel, FAILURES, type FlowAnswer, invalid, page, redirect } from './answers.ts';
import type { ConnectCore } from './core.ts';
import { backCookie, landingPage } from './landing.ts';
import { hashSecret, newSecret } from './secrets.ts';
import { LINK_PATH } from './types.ts';

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

export type { CheckedCreateResult } from './checked.ts';

export class ConnectLinks {
  private readonly core: ConnectCore;
  constructor(core: ConnectCore) {
    this.core = core;
  }

  /** Creates a one-time connect link; only a hash of its secret is stored. */
  async create(
    input: LinkInput,
  ): Promise<{ id: string; url: string; expiresAt: string; link: ConnectLinkView }> {
    const { adapter, facet } = this.core.facet(input.provider);
    const label = checkedLabel(input.label);
    const ttlMs = input.ttlMs ?? this.core.config.connect.linkTtlMs;
    if (!Number.isFinite(ttlMs) || ttlMs < 60_000 || ttlMs > 30 * 86_400_000) {
      throw invalid('ttl', 'a link must live between 1 minute and 30 days');
    }
    // Refuse now what would fail when the link is opened: an unknown login host, a missing app.
    const target = this.core.checkStart(adapter, facet, {
      provider: input.provider,
      loginHost: input.loginHost,
      sandbox: input.sandbox,
    });
    const secret = newSecret();
    const now = this.core.clock.now();
    const link = await this.core.store.connectLinks.insert({
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
      url: `${this.core.publicBaseUrl()}${LINK_PATH}${secret}`,
      expiresAt: link.expiresAt,
      link: this.view(link),
    };
  }

  async list(): Promise<ConnectLinkView[]> {
    return (await this.core.store.connectLinks.list()).map((l) => this.view(l));
  }

  /** 'revoked', or why not: 'not_found', or 'used' / 'revoked' when it already was. */
  async revoke(id: string): Promise<'revoked' | 'not_found' | 'used' | 'already_revoked'> {
    if (await this.core.store.connectLinks.revoke(id, new Date(this.core.clock.now()).toISOString()))
      return 'revoked';
    const link = await this.core.store.connectLinks.find(id);
    if (link === null) return 'not_found';
    return link.usedAt !== null ? 'used' : 'already_revoked';
  }

  /**
   * `GET /connect/:secret`: checks the link, then answers our landing page (who asks, for which CRM,
   * what will be shared); with `proceed` (its Continue button) sends the browser to the consent page.
   */
  async open(secret: string, secure: boolean, proceed = false): Promise<FlowAnswer> {
    const link =
      secret.length > 0 && secret.length <= 100
        ? await this.core.store.connectLinks.findBySecretHash(hashSecret(secret))
        : null;
    if (link === null) return page(404, FAILURES.link_unknown, []);
    const status = this.view(link).status;
    if (status !== 'active') return page(410, FAILURES[`link_${status}`], []);
    if (!proceed) {
      const { adapter } = this.core.facet(link.provider);
      const landing = landingPage({
        crm: adapter.profile.displayName,
        service: this.core.config.connect.serviceName ?? new URL(this.core.publicBaseUrl()).host,
        label: link.label,
        expiresAt: link.expiresAt,
        continueHref: `${LINK_PATH}${secret}?continue=1`,
      });
      return page(200, landing, []);
    }
    try {
      const started = await this.core.begin(
        {
          provider: link.provider,
          label: link.label,
          ...(link.loginUrl === null ? { sandbox: true } : { loginHost: link.loginUrl, sandbox: false }),
        },
        link.id,
      );
      return redirect(started.authorizeUrl, [
        this.core.bindingCookie(started.binding, secure),
        backCookie(`${LINK_PATH}${secret}`, secure),
      ]);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return page(503, FAILURES.link_cannot_start(err.message), []);
    }
  }

  view(link: ConnectLink): ConnectLinkView {
    const status: LinkStatus =
      link.usedAt !== null
        ? 'used'
        : link.revokedAt !== null
          ? 'revoked'
          : Date.parse(link.expiresAt) <= this.core.clock.now()
            ? 'expired'
            : 'active';
    return { ...link, status };
  }
}
