// What the Connections page says after a connect flow, and which connections reach the same CRM
// account as an earlier one (connected twice, by the console or by two connect links).
import { accountKey, type Connection } from '../../domain/connection.ts';
import { type Html, html } from './html.ts';

const ID = /^conn_[A-Za-z0-9]{1,64}$/;

/** The account a connection reaches, per CRM; the first connection of each account keeps it. */
export function sameAccount(connections: readonly Connection[]): Map<string, string> {
  const first = new Map<string, string>();
  const twins = new Map<string, string>();
  const ordered = [...connections].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  for (const c of ordered) {
    const key = accountKey(c);
    if (key === null) continue;
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, c.id);
    else twins.set(c.id, earlier);
  }
  return twins;
}

/** The notice after `?connected=`, `?reconnected=` and `?same_account_as=`, each id a link. */
export function flowNotice(query: Record<string, string | undefined>): Html | null {
  const link = (id: string) => html`<a href="/console/connections/${id}">${id}</a>`;
  const { connected, reconnected, same_account_as: twin, welcome } = query;
  if (connected !== undefined && ID.test(connected)) {
    const same =
      twin !== undefined && ID.test(twin)
        ? html` This account was already connected as ${link(twin)}: remove one of them unless both are wanted.`
        : '';
    return html`Connected: ${link(connected)}. Create its API token on its page.${same}`;
  }
  if (reconnected !== undefined && ID.test(reconnected))
    return html`Reconnected: ${link(reconnected)}. Its API tokens keep working.`;
  if (welcome !== undefined)
    return html`You are the first operator. Next: connect a CRM account below, then create an API token on its page.`;
  return null;
}
