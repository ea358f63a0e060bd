import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { redactingLogger } from '../../src/http/plugins/log-redaction.ts';
import { startStack } from '../helpers/stack.ts';

/** A pino logger at info level whose lines land in `lines`. */
function capture(): { logger: pino.Logger; text(): string } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), text: () => lines.join('') };
}

test('tokens and secrets in query strings never reach the request, response or error logs', async (t) => {
  const log = capture();
  const s = await startStack(t, { overrides: { logger: log.logger } });
  const token = s.tokens.salesforce;
  const secrets = ['hs-secret-1', 'sig-secret-2', 'pw-secret-3', 'any-secret-4', 'enc-secret-5'];

  // A token in the query string instead of the header: refused, and not logged.
  const refused = await s.api(`/v1/object/soql?access_token=${token}`, { token: null, body: { data: 'x' } });
  assert.equal(refused.status, 401);
  // Pass-through: raw query, unknown parameter names, and a query hidden in an encoded target.
  const proxied = [
    `/v1/proxy/services/data/v62.0/limits?hapikey=${secrets[0]}&signature=${secrets[1]}`,
    `/v1/proxy/services/data/v62.0/limits?password=${secrets[2]}&whatever=${secrets[3]}`,
    `/v1/proxy/https%3A%2F%2Fapi.hubapi.com%2Fcrm%2Fv3%3Fhapikey%3D${secrets[4]}`,
  ];
  for (const path of proxied) await s.api(path, { method: 'GET' });
  // An unknown route and a refused token.
  await s.api(`/v1/nowhere?token=${token}`, { method: 'GET' });
  await s.api(`/v1/describe?code=${token}`, {
    token: `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`,
  });

  const text = log.text();
  // One line per request: the completed line carries the request and the answer's status.
  assert.doesNotMatch(text, /incoming request/);
  const completed = text.split('\n').filter((line) => line.includes('"msg":"request completed"'));
  assert.ok(completed.length >= proxied.length + 2, 'the request log is on');
  for (const line of completed) {
    const entry = JSON.parse(line) as {
      req?: { method?: string; url?: string };
      res?: { statusCode?: number };
    };
    assert.equal(typeof entry.req?.url, 'string', line);
    assert.equal(typeof entry.res?.statusCode, 'number', line);
  }
  assert.ok(!text.includes(token), 'the API token is in the log');
  assert.ok(!text.includes(token.slice(8, 30)), 'part of the API token is in the log');
  for (const secret of secrets) assert.ok(!text.includes(secret), `${secret} is in the log`);
  assert.match(text, /"url":"\/v1\/object\/soql\?\[redacted\]"/);
  assert.match(text, /"url":"\/v1\/proxy\/services\/data\/v62\.0\/limits\?\[redacted\]"/);
  assert.match(text, /"url":"\/v1\/proxy\/https%3A%2F%2Fapi\.hubapi\.com%2Fcrm%2Fv3\?\[redacted\]"/);
});

test('error lines lose tokens from messages and stacks, also with a logger passed in', () => {
  const log = capture();
  const logger = redactingLogger(log.logger);
  const token = 'crmp_eu_0123456789abcdefghijABCDEFGHIJ0123456789abcdefg';
  logger.error({ err: new Error(`failed for ${token} with Bearer 00Dxx!secret`) }, 'request failed');
  const text = log.text();
  assert.ok(!text.includes(token) && !text.includes('00Dxx!secret'), text);
  assert.match(text, /\[redacted\]/);
  assert.match(text, /request failed/);
});

test('an API token put in X-Request-Id or in the path reaches neither the log, the request log nor the answer', async (t) => {
  const log = capture();
  const s = await startStack(t, { overrides: { logger: log.logger } });
  const token = s.tokens.salesforce;
  const asId = await s.api('/v1/describe', { headers: { 'x-request-id': token } });
  assert.equal(asId.status, 200);
  const id = asId.headers.get('x-request-id') ?? '';
  assert.match(id, /^req_/, 'a fresh id replaces the token');
  const plainId = await s.api('/v1/describe', { headers: { 'x-request-id': 'client-trace-0001' } });
  assert.equal(plainId.headers.get('x-request-id'), 'client-trace-0001', 'an id-shaped value is kept');
  const inPath = await s.api(`/v1/object/get/${token}`, { body: { data: { ids: [] } } });
  assert.notEqual(inPath.status, 500);
  await s.ctx.requestLog.flush();
  const text = log.text();
  assert.ok(!text.includes(token.slice(8, 30)), 'the token is in the service log');
  const listed = JSON.stringify(await s.store.requestLog.query({ limit: 50 }));
  assert.match(listed, /\[redacted\]/, 'the path is in the request log, masked');
  assert.ok(!listed.includes(token.slice(8, 30)), 'the token is in the request log');
});
