// A cookie jar of one browser for the console's API tests: follows Set-Cookie, reads form tokens.
import assert from 'node:assert/strict';
import type { Stack } from '../helpers/stack.ts';

export const EMAIL = 'ops@example.com';
export const PASSWORD = 'correct horse battery staple';

/** A cookie jar of one browser, enough for the console's cookies. */
export class Browser {
  readonly cookies = new Map<string, string>();
  readonly s: Stack;
  constructor(s: Stack) {
    this.s = s;
  }

  async go(path: string, init: { method?: string; form?: Record<string, string> } = {}) {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers['cookie'] = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(`${this.s.baseUrl}${path}`, {
      method: init.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      redirect: 'manual',
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (pair === undefined || eq < 0) continue;
      const value = pair.slice(eq + 1);
      if (/Max-Age=0/i.test(line)) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), value);
    }
    return {
      status: response.status,
      headers: response.headers,
      text: await response.text(),
      setCookies: response.headers.getSetCookie(),
    };
  }

  csrf(html: string): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(html);
    assert.ok(m?.[1], 'the form carries a CSRF token');
    return m[1];
  }

  async signIn(email = EMAIL, password = PASSWORD) {
    const form = await this.go('/console/sign-in');
    return this.go('/console/sign-in', { form: { _csrf: this.csrf(form.text), email, password } });
  }
}
