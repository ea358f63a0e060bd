import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import {
  LOG_REDACTION,
  looksLikeToken,
  maskTokens,
  redactRequestUrl,
  redactText,
  redactUrl,
} from '../../src/lib/redact.ts';

test('URLs lose secret query parameters and user-info', () => {
  const out = redactUrl(
    'https://user:pw@example.com/services/oauth2/token?refresh_token=abc&client_secret=s3&x=1',
  );
  assert.doesNotMatch(out, /abc|s3|pw/);
  assert.match(out, /x=1/);
  assert.equal(redactUrl('not a url'), '[redacted]');
});

test('tokens in token-information paths and connect-link secrets never reach a log', () => {
  const out = redactUrl('https://api.hubapi.com/oauth/v1/access-tokens/CJSP5qf1LhICAQEYs-gDIIGO?x=1');
  assert.equal(out, 'https://api.hubapi.com/oauth/v1/access-tokens/[redacted]?x=1');
  assert.doesNotMatch(redactUrl('http://127.0.0.1:1/oauth/v1/refresh-tokens/na1-abc'), /na1-abc/);
  assert.equal(redactRequestUrl('/connect/Zx9secret-value'), '/connect/[redacted]');
  assert.equal(redactRequestUrl('/connect/Zx9secret?x=1'), '/connect/[redacted]?[redacted]');
  assert.equal(redactRequestUrl('/oauth/callback?code=abc&state=def'), '/oauth/callback?[redacted]');
});

test('credential-shaped path segments are masked, and paths without one come back unchanged', () => {
  const run40 = 'aB3'.repeat(14).slice(0, 40);
  assert.equal(maskTokens(`/v1/proxy/x/${run40}/y`), '/v1/proxy/x/[redacted]/y');
  assert.equal(maskTokens(`/a${run40}`), '/[redacted]', 'a run of 41 is masked whole');
  assert.equal(maskTokens(`/x/${run40.slice(1)}/y`), `/x/${run40.slice(1)}/y`, '39 letters and digits stay');
  assert.equal(maskTokens('/x/crmp_us_abcDEF123/y'), '/x/[redacted]/y');
  assert.equal(maskTokens('/x/CRMP_US_abc/y'), '/x/[redacted]/y', 'case-insensitively');
  assert.equal(maskTokens('/a/pat-na1-0123456789abcdef0123/b'), '/a/[redacted]/b');
  // A long run right after a private-app token (no separator) is masked too.
  assert.equal(maskTokens(`/a/pat-na1-0123456789abcdef0123${'g'.repeat(40)}`), '/a/[redacted][redacted]');
  const plain = '/v1/proxy/services/data/v62.0/sobjects/Account/001000000000001AAA';
  assert.equal(maskTokens(plain), plain);
});

test('a client-chosen request id that looks like a credential is recognised as one', () => {
  assert.equal(looksLikeToken('crmp_us_abcDEF123'), true);
  assert.equal(looksLikeToken('pat-na1-0123456789abcdef0123'), true);
  assert.equal(looksLikeToken(`id-${'aB3'.repeat(14)}`), true);
  assert.equal(looksLikeToken('client-abc-12345'), false);
  assert.equal(looksLikeToken(`id-${'aB3'.repeat(13)}`), false, '39 letters and digits are an id');
});

test('text loses tokens', () => {
  const text = redactText(
    '{"access_token":"00D!abc","refresh_token":"5Aep","ok":1} grant_type=refresh_token&refresh_token=zz Bearer qwe.rty',
  );
  assert.doesNotMatch(text, /00D!abc|5Aep|zz|qwe\.rty/);
  assert.match(text, /"ok":1/);
});

test('the service logger masks authorization headers and tokens in logged objects', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = pino(LOG_REDACTION, sink);
  log.info({ req: { headers: { authorization: 'Bearer crmp_eu_secret', cookie: 'sid=1' } } }, 'incoming');
  const grant = { accessToken: 'A', refreshToken: 'R', client_secret: 'S', scope: 'api' };
  log.info({ grant, other: { token: 'T' }, note: 'kept' }, 'refreshed');
  log.child({ component: 'tokens' }).info({ session: { access_token: 'B' } }, 'in a child');
  const all = lines.join('');
  assert.doesNotMatch(all, /crmp_eu_secret|sid=1|"A"|"R"|"S"|"T"|"B"/);
  assert.match(all, /\[redacted\]/);
  assert.match(all, /"scope":"api"/);
  assert.match(all, /"note":"kept"/);
  // The logged object itself is left as it was.
  assert.equal(grant.accessToken, 'A');
});
