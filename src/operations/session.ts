import type { TokenManager } from '../connections/token-manager.ts';
import type { Connection } from '../domain/connection.ts';
import type { CrmAdapter, CrmSession } from '../providers/adapter.ts';
import type { HttpClient } from '../providers/client/http-client.ts';
import { CrmError } from '../providers/errors.ts';

/** What a session needs: the connection's tokens and the outbound HTTP client. */
export interface SessionDeps {
  tokens: TokenManager;
  client: HttpClient;
}

/**
 * A session on one connection: every call carries the current access token; a CRM 401 triggers
 * one refresh (shared with every concurrent caller) and one resend.
 */
export function openSession(deps: SessionDeps, adapter: CrmAdapter, connection: Connection): CrmSession {
  return {
    connectionId: connection.id,
    baseUrl: adapter.defaultApiBaseUrl(connection),
    async send(request) {
      const sendWith = (token: string) =>
        deps.client.send({ ...request, headers: adapter.auth.authorize(request.headers ?? {}, token) });
      const token = await deps.tokens.accessToken(connection);
      const first = await sendWith(token);
      if (!adapter.auth.isExpiredToken(first)) {
        if (first.status !== 401) deps.tokens.accepted(connection.id, token);
        return first;
      }
      const fresh = await deps.tokens.refreshAfterRejected(connection, token);
      const second = await sendWith(fresh);
      if (adapter.auth.isExpiredToken(second)) {
        throw new CrmError(
          connection.provider,
          'auth_rejected',
          'the CRM rejected a freshly refreshed access token',
          {
            status: second.status,
            crmBody: second.text.slice(0, 500),
          },
        );
      }
      if (second.status !== 401) deps.tokens.accepted(connection.id, fresh);
      return second;
    },
  };
}
