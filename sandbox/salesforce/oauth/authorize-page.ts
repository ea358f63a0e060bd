/** HTML of the sandbox's consent page and of the authorize endpoint's error page. */

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const layout = (title: string, body: string): string => `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#181818}
.card{border:1px solid #ddd;border-radius:.5rem;padding:1.5rem}button{font-size:1rem;padding:.5rem 1.25rem;margin-right:.5rem}
.allow{background:#0176d3;color:#fff;border:0;border-radius:.25rem}code{word-break:break-all}</style></head>
<body><div class="card">${body}</div></body></html>`;

export function consentPage(fields: Record<string, string>, username: string): string {
  const hidden = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  const scope = fields['scope'] ?? '';
  return layout(
    'Allow Access?',
    `<h1>Allow Access?</h1>
<p>The app is asking to access your sandbox org as <b>${esc(username)}</b>.</p>
<p>Scopes: <code>${esc(scope === '' ? 'api refresh_token' : scope)}</code></p>
<form method="post" action="/services/oauth2/authorize">${hidden}
<button class="allow" type="submit" name="action" value="allow">Allow</button>
<button type="submit" name="action" value="deny">Deny</button></form>`,
  );
}

/**
 * Salesforce shows bad client ids and callback URLs on its own page, as the raw
 * `error=...&error_description=...` pair, instead of redirecting to an unverified URL.
 */
export function errorPage(error: string, description: string): string {
  const text = `error=${error}&error_description=${encodeURIComponent(description)}`;
  return layout('Error', `<h1>Remote Access Error</h1><p>${esc(text)}</p>`);
}
