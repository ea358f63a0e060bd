const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
  '<meta name="viewport" content="width=device-width,initial-scale=1">' +
  '<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#33475b}' +
  'button{font-size:1rem;padding:.5rem 1.5rem;margin-right:.5rem;border-radius:3px;border:1px solid #ff7a59;cursor:pointer}' +
  '.allow{background:#ff7a59;color:#fff}.deny{background:#fff;color:#ff7a59}code{background:#eaf0f6;padding:0 .2rem}</style>' +
  `</head><body>${body}</body></html>`;

export interface ConsentPageInput {
  portalId: number;
  userEmail: string;
  /** Hidden form fields carried to the decision post (client_id, redirect_uri, scope, optional_scope, state, PKCE challenge). */
  fields: Record<string, string>;
  scopes: string[];
  optionalScopes: string[];
}

/** HubSpot's "connect app" page, reduced to what a browser user needs: the scopes and Allow / Deny. */
export function consentPage(input: ConsentPageInput): string {
  const hidden = Object.entries(input.fields)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  const list = (scopes: string[]) => scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('');
  const optional =
    input.optionalScopes.length > 0 ? `<p>Optional access:</p><ul>${list(input.optionalScopes)}</ul>` : '';
  return page(
    'Connect app to HubSpot sandbox',
    `<h1>Connect app</h1><p>Signed in as <strong>${escapeHtml(input.userEmail)}</strong>, account ` +
      `<strong>${input.portalId}</strong> (HubSpot sandbox).</p>` +
      `<p>The app asks for:</p><ul>${list(input.scopes)}</ul>${optional}` +
      `<form method="post" action="/oauth/authorize">${hidden}` +
      '<button class="allow" type="submit" name="decision" value="allow">Connect app</button>' +
      '<button class="deny" type="submit" name="decision" value="deny">Cancel</button></form>',
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
