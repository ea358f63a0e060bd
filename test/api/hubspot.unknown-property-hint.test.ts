import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';

interface ErrorBody {
  error: { code: string; message: string };
}

test('an unknown HubSpot property names a describe route that answers, and it lists the real property', async (t) => {
  const s = await startStack(t);
  const refused = await s.api<ErrorBody>('/v1/object/insert/contacts', {
    token: s.tokens.hubspot,
    body: { data: [{ firstnam: 'Ada' }] },
  });
  assert.equal(refused.status, 400, refused.text);
  const route = /POST (\/v1\/describe\/\S+?) /.exec(refused.body.error.message)?.[1];
  assert.equal(route, '/v1/describe/contacts', refused.body.error.message);
  assert.doesNotMatch(refused.body.error.message, /not offered/);
  const described = await s.api<{ data: unknown }>(route, { token: s.tokens.hubspot });
  assert.equal(described.status, 200, described.text.slice(0, 200));
  assert.match(described.text, /"firstname"/);
});
