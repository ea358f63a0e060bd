import { randomBase62 } from '../crypto/random.ts';
import type { ConnectLink, ConnectLinkInput, ConnectLinkView, SentAnswer } from '../domain/connect.ts';
import { ApiError } from '../errors/index.ts';
import { checkedLabel, FAILURES, type FlowAnswer, invalid, page } from './answers.ts';
import { ConnectCore, LINK_PATH } from './core.ts';
import { backCookie, landingPage } from './landing.ts';
import { hashSecret, newSecret } from './secrets.ts';

/** The connect flow with one-time links: created by an operator, opened by the account owner. */
export class ConnectLinks extends ConnectCore {
  /** Creates a one-time connect link; only a hash of its secret is stored. */
  async createLink(
    input: ConnectLinkInput,
  ): Promise<{ id: string; url: string; expiresAt: string; link: ConnectLinkView }> {
    const { adapter, facet } = this.facet(input.provider);
    const label = checkedLabel(input.label);
    const ttlMs = input.ttlMs ?? this.deps.config.connect.linkTtlMs;
    if (!Number.isFinite(ttlMs) || ttlMs < 60_000 || ttlMs > 30 * 86_400_000) {
      throw invalid('ttl', 'a link must live between 1 minute and 30 days');
    }
    // Refuse now what would fail when the link is opened: an unknown login host, a missing app.
    const target = this.target(adapter, facet, input, null);
    this.app(adapter, facet, target);
    const secret = newSecret();
    const now = this.deps.clock.now();
    const link = await this.deps.store.connectLinks.insert({
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
      link: this.view(link),
    };
  }

  async listLinks(): Promise<ConnectLinkView[]> {
    return (await this.deps.store.connectLinks.list()).map((l) => this.view(l));
  }

  /** Stops an unused link from working ('revoked', or 'already_revoked'); refuses an unknown or used one. */
  async revokeLink(id: string): Promise<'revoked' | 'already_revoked'> {
    if (await this.deps.store.connectLinks.revoke(id, new Date(this.deps.clock.now()).toISOString()))
      return 'revoked';
    const link = await this.deps.store.connectLinks.find(id);
    if (link === null) throw new ApiError('not_found', `No connect link ${id.slice(0, 80)} here.`);
    if (link.usedAt !== null) {
      const message = `Connect link ${id} was used already; remove its connection instead.`;
      throw new ApiError('invalid_value', message, { details: [{ field: 'id' }] });
    }
    return 'already_revoked';
  }

  /** `GET /connect/:secret`: the landing page, or with `proceed` (its Continue button) the consent page. */
  async openLink(secret: string, secure: boolean, proceed = false): Promise<SentAnswer> {
    return this.sent(await this.#open(secret, secure, proceed));
  }

  async #open(secret: string, secure: boolean, proceed: boolean): Promise<FlowAnswer> {
    const link =
      secret.length > 0 && secret.length <= 100
        ? await this.deps.store.connectLinks.findBySecretHash(hashSecret(secret))
        : null;
    if (link === null) return page(404, FAILURES.link_unknown);
    const status = this.view(link).status;
    if (status !== 'active') return page(410, FAILURES[`link_${status}`]);
    if (!proceed) {
      const { adapter } = this.facet(link.provider);
      const landing = landingPage({
        crm: adapter.profile.displayName,
        service: this.brand().name,
        label: link.label,
        expiresAt: link.expiresAt,
        continueHref: `${LINK_PATH}${secret}?continue=1`,
      });
      return page(200, landing);
    }
    try {
      const started = await this.begin(
        {
          provider: link.provider,
          label: link.label,
          ...(link.loginUrl === null ? { sandbox: true } : { loginHost: link.loginUrl, sandbox: false }),
        },
        link.id,
      );
      const setCookies = [
        this.bindingCookie(started.binding, secure),
        backCookie(`${LINK_PATH}${secret}`, secure),
      ];
      return { kind: 'redirect', location: started.authorizeUrl, setCookies };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return page(503, FAILURES.link_cannot_start(err.message));
    }
  }

  /** A link with its status: used, revoked and expired in that order, else active. */
  protected view(link: ConnectLink): ConnectLinkView {
    const status: ConnectLinkView['status'] =
      link.usedAt !== null
        ? 'used'
        : link.revokedAt !== null
          ? 'revoked'
          : Date.parse(link.expiresAt) <= this.deps.clock.now()
            ? 'expired'
            : 'active';
    return { ...link, status };
  }
}
