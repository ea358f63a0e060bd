import type { ProviderProfile } from '../../providers/adapter.ts';

// Texts of the API document that name the CRMs come from the registered profiles, never from a
// hand-written list: a description says `{{crm.ids}}` and the finished document lists the ids of
// every CRM this deployment (or a test) registers. Route schemas keep the placeholder, which
// validation ignores; only the document shows the text.

const TOKEN = /\{\{crm\.([A-Za-z]+)\}\}/g;

const code = (text: string) => `\`${text}\``;

/** "a", "a or b", "a, b or c". */
function joined(items: readonly string[], last: 'and' | 'or'): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

/** A note that applies to some CRMs: "X only: …." for one, "X: …; Y: …." for several. */
function only(entries: Array<[crm: string, text: string]>, none: string): string {
  if (entries.length === 0) return none;
  if (entries.length === 1) return `${entries[0]?.[0]} only: ${entries[0]?.[1]}.`;
  return `${entries.map(([crm, text]) => `${crm}: ${text}`).join('; ')}.`;
}

/** An object-name example ("Account or Invoice__c") as code spans ("`Account`, `Invoice__c`"). */
function objectNames(profile: ProviderProfile): string {
  return profile.objectName.example
    .split(/,\s*|\s+or\s+/)
    .filter((name) => name !== '')
    .map(code)
    .join(', ');
}

/** Each placeholder's text for these CRMs, in registry order. */
export function providerTexts(profiles: readonly ProviderProfile[]): Record<string, string> {
  const each = (text: (p: ProviderProfile) => string) => profiles.map(text);
  // [CRM, note] of the CRMs that have the note.
  const noted = (note: (p: ProviderProfile) => string | undefined) =>
    profiles.flatMap((p): Array<[string, string]> => {
      const text = note(p);
      return text === undefined ? [] : [[p.displayName, text]];
    });
  const history = noted((p) =>
    p.limits.getIdsWithHistory === undefined ? undefined : `at most ${p.limits.getIdsWithHistory} ids then`,
  );
  const interfaces = noted((p) =>
    p.writeInterfaces.length === 0 ? undefined : joined(p.writeInterfaces.map(code), 'or'),
  );
  const upsertKeys = noted((p) => p.doc.upsertKey).map(([crm, key]) => `${key} (${crm})`);
  const allowance = noted((p) => p.doc.allowance).map(([crm, source]) => `${crm}: ${source}`);
  return {
    names: joined(
      each((p) => p.displayName),
      'and',
    ),
    ids: joined(
      each((p) => code(p.id)),
      'or',
    ),
    objectNames: each((p) => `${p.displayName} ${objectNames(p)}`).join('; '),
    apiHosts: each((p) => `${p.doc.apiHost} for ${p.displayName}`).join(', '),
    oauthApps: joined(
      each((p) => p.doc.oauthApp),
      'and',
    ),
    getIds: each((p) => `up to ${p.limits.getIds} on ${p.displayName}`).join(', '),
    history: only(history, 'No CRM of this deployment keeps property history.'),
    loginHosts: only(
      noted((p) => p.doc.loginHost),
      'No CRM of this deployment takes a login host.',
    ),
    writeInterfaces:
      interfaces.length === 0
        ? 'every CRM of this deployment has one'
        : interfaces.map(([crm, names]) => `${names} on ${crm}`).join('; '),
    allowance: allowance.length === 0 ? 'no CRM of this deployment reports one' : allowance.join('; '),
    upsertKeys: upsertKeys.length === 0 ? '' : `, ${joined(upsertKeys, 'or')}`,
  };
}

/** A copy of `value` with every `{{crm.…}}` placeholder in its strings replaced; an unknown one throws. */
export function withProviderTexts<T>(value: T, texts: Record<string, string>): T {
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') {
      return v.replace(TOKEN, (_, name: string) => {
        const text = texts[name];
        if (text === undefined) throw new Error(`unknown API document placeholder {{crm.${name}}}`);
        return text;
      });
    }
    if (typeof v !== 'object' || v === null) return v;
    if (Array.isArray(v)) return v.map(fill);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
  };
  return fill(value) as T;
}
