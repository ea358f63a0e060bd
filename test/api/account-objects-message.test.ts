// An operation HubSpot's account objects do not offer is refused naming the ones they do, which
// agree with what succeeds: pipelines are inserted and updated, never deleted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';

test('delete on deal_pipelines names the operations pipelines do offer', async (t) => {
  const s = await startStack(t);
  const token = s.tokens.hubspot;
  const created = await s.api<{ data: Array<{ id: string | null; success: boolean }> }>(
    '/v1/object/insert/deal_pipelines',
    {
      token,
      body: {
        data: [
          {
            label: 'Renewals',
            displayOrder: 3,
            stages: [{ label: 'Signed', displayOrder: 0, metadata: { probability: '0.5' } }],
          },
        ],
      },
    },
  );
  assert.equal(created.status, 200, created.text);
  const id = created.body.data[0]?.id ?? '';
  assert.equal(created.body.data[0]?.success, true, created.text);
  const refused = await s.api<{
    error: { code: string; message: string; details: Array<{ operations: string[] }> };
  }>('/v1/object/delete/deal_pipelines', { token, body: { data: { ids: [id] } } });
  assert.equal(refused.body.error.code, 'object_not_supported', refused.text);
  assert.deepEqual(refused.body.error.details[0]?.operations, ['get', 'query', 'insert', 'update']);
  assert.match(refused.body.error.message, /get, query, insert, update/);
  assert.doesNotMatch(refused.body.error.message, /no writes/);
});
