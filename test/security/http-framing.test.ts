import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { errorShapeProblems } from './answer-checks.ts';
import { header, rawRequest } from './raw-http.ts';

/** Requests Fastify refuses before any route runs still answer in the API's error shape. */
test('malformed HTTP, oversized headers and undecodable URLs answer JSON errors in the API shape', async (t) => {
  const s = await startStack(t);
  const auth: [string, string] = ['Authorization', `Bearer ${s.tokens.salesforce}`];
  const cases = [
    {
      path: '/v1/describe',
      headers: [auth, ['X-Big', 'a'.repeat(70_000)]],
      status: 431,
      code: 'headers_too_large',
    },
    { path: '/v1/object/get/%zz', headers: [auth], status: 400, code: 'invalid_path' },
    { path: `/v1/object/get/${'A'.repeat(500)}`, headers: [auth], status: 400, code: 'invalid_object_name' },
    {
      path: '/v1/describe',
      headers: [auth, ['X-Bad', Buffer.from([0x01, 0x7f])]],
      status: 400,
      code: 'malformed_request',
    },
  ] satisfies Array<{
    path: string;
    headers: Array<[string, string | Buffer]>;
    status: number;
    code: string;
  }>;
  for (const c of cases) {
    const answer = await rawRequest(s.baseUrl, { method: 'POST', path: c.path, headers: c.headers });
    assert.equal(answer.status, c.status, `${c.path}: ${answer.body.toString()}`);
    assert.deepEqual(errorShapeProblems(answer), [], c.path);
    assert.equal(JSON.parse(answer.body.toString()).error.code, c.code);
    assert.match(header(answer, 'x-request-id') ?? '', /^req_/);
  }
});
