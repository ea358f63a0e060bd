/**
 * The little XML Bulk API 1.0 speaks: flat `<jobInfo>` / `<batchInfo>` / `<error>` documents in
 * the asyncapi namespace. Requests only carry flat elements (`<operation>`, `<object>`,
 * `<state>`, ...), so reading takes each simple element's text; nested or repeated elements are
 * not part of these requests.
 */
export const ASYNC_NS = 'http://www.force.com/2009/06/asyncapi/dataload';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

const decode = (s: string): string =>
  s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_m, e: string) => {
    if (e[0] === '#')
      return String.fromCodePoint(
        e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1)),
      );
    return ENTITIES[e.toLowerCase()] ?? '';
  });

const encode = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => `&${Object.entries(ENTITIES).find(([, v]) => v === c)?.[0] ?? 'amp'};`);

/** The simple elements of a flat document, by local name (namespace prefixes dropped). */
export function readFlatXml(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /<(?:[\w-]+:)?([\w-]+)(?:\s[^>]*)?>([^<]*)<\/(?:[\w-]+:)?\1\s*>/g;
  for (const m of text.matchAll(re)) {
    const [, name, value] = m;
    if (name !== undefined && value !== undefined && !(name in out)) out[name] = decode(value.trim());
  }
  return out;
}

type XmlValue = string | number | boolean | null | undefined;

function elements(fields: Record<string, XmlValue>, indent: string): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${indent}<${k}>${encode(String(v))}</${k}>`)
    .join('\n');
}

export function xmlDocument(root: string, fields: Record<string, XmlValue>): string {
  return `<?xml version="1.0" encoding="UTF-8"?><${root}\n   xmlns="${ASYNC_NS}">\n${elements(fields, ' ')}\n</${root}>`;
}

/** `<batchInfoList>` with one `<batchInfo>` per batch. */
export function xmlList(root: string, item: string, items: Record<string, XmlValue>[]): string {
  const body = items.map((f) => ` <${item}>\n${elements(f, '  ')}\n </${item}>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?><${root}\n   xmlns="${ASYNC_NS}">\n${body}\n</${root}>`;
}
