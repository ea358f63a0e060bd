import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { LOG_REDACTION, redactRequestUrl, redactText, redactUrl } from '../../src/lib/redact.ts';

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
