// Pages that end a connect flow: no script, one stylesheet allowed by its hash, every value escaped
// (the page may show text a CRM sent back).
import { createHash } from 'node:crypto';
import { escapeHtml } from '../lib/escape-html.ts';

const STYLE =
  'body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f5f7fa;color:#1d232a}' +
  'main{max-width:34rem;margin:3rem auto;padding:0 1rem}' +
  '.card{background:#fff;border:1px solid #dde2e7;border-radius:.5rem;padding:1.5rem 1.75rem}' +
  'h1{font-size:1.35rem;margin:0 0 .75rem}.ok h1{color:#2f7d32}.fail h1{color:#b03a2e}' +
  'dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:1rem 0}dt{color:#5a6570}dd{margin:0;word-break:break-all}' +
  'code{background:#eef1f4;padding:0 .25rem;border-radius:3px;word-break:break-all}' +
  '.next{border-top:1px solid #dde2e7;margin-top:1rem;padding-top:.75rem}.small{color:#5a6570;font-size:.85rem}' +
  '.brand{display:flex;align-items:center;gap:.6rem;margin:0 0 1rem;font-weight:600}.brand img{max-height:2rem;max-width:8rem}' +
  '.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0 0}.actions a{display:inline-block;padding:.5rem 1rem;border-radius:4px;' +
  'border:1px solid #1f5fbf;color:#1f5fbf;text-decoration:none}.actions a.primary{background:#1f5fbf;color:#fff}';

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** The pages' policy: nothing but their one stylesheet, and images from the logo's origin when there is one. */
const csp = (imgOrigin: string | null): string =>
  `default-src 'none'; ${imgOrigin === null ? '' : `img-src ${imgOrigin}; `}style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** Headers every connect page and redirect carries. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': csp(null),
  // The callback URL carries an authorization code, a link URL its secret: neither may leak onward.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** Who the account owner deals with: the operator's service, by its name and optional logo. */
export interface Brand {
  name: string;
  logoUrl: string | null;
}

/** The page headers, the logo's origin allowed as an image source when there is one. */
export function brandedHeaders(brand: Brand): Readonly<Record<string, string>> {
  if (brand.logoUrl === null) return PAGE_HEADERS;
  return { ...PAGE_HEADERS, 'content-security-policy': csp(new URL(brand.logoUrl).origin) };
}

export interface PageContent {
  tone: 'ok' | 'fail';
  title: string;
  what: string;
  next: string;
  facts?: ReadonlyArray<readonly [string, string]>;
  /** Machine-readable, in the `X-Connect-Outcome` header only. */
  reason: string;
  actions?: ReadonlyArray<{ href: string; label: string; primary: boolean }>;
}

export function renderPage(page: PageContent, brand: Brand): string {
  const facts = !page.facts?.length
    ? ''
    : `<dl>${page.facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd><code>${escapeHtml(v)}</code></dd>`).join('')}</dl>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(page.title)} · ${escapeHtml(brand.name)}</title>
<style>${STYLE}</style></head>
<body><main><div class="card ${page.tone}"><p class="brand">${brand.logoUrl === null ? '' : `<img src="${escapeHtml(brand.logoUrl)}" alt="">`}<span>${escapeHtml(brand.name)}</span></p>
<h1>${escapeHtml(page.title)}</h1>
<p>${escapeHtml(page.what)}</p>${facts}
<p class="next">${escapeHtml(page.next)}</p>${
    !page.actions?.length
      ? ''
      : `<p class="actions">${page.actions.map((a) => `<a${a.primary ? ' class="primary"' : ''} href="${escapeHtml(a.href)}">${escapeHtml(a.label)}</a>`).join('')}</p>`
  }
</div></main></body></html>
`;
}
