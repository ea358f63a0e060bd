import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../../src/lib/clock.ts';
import { ConcurrencyLimiter } from '../../src/lib/limiter.ts';
import type { CrmSession, HandlerCall } from '../../src/providers/adapter.ts';
import type { OutboundResponse } from '../../src/providers/client/types.ts';
import { PerConnectionState } from '../../src/providers/hubspot/connection-state.ts';
import { hubspotWrites } from '../../src/providers/hubspot/writes.ts';

const json = (status: number, body: unknown): OutboundResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  text: JSON.stringify(body),
  attempts: 1,
});

/**
 * A HubSpot that refuses a whole batch create with 409 when it holds a taken email (as HubSpot may
 * without `objectWriteTraceId` support on that path), and creates every other batch.
 */
function fakeHubSpot(taken: string) {
  const batches: number[] = [];
  let nextId = 500;
  const session: CrmSession = {
    connectionId: 'conn_1',
    baseUrl: 'https://api.example',
    async send(request) {
      if (request.url.includes('/crm/v3/properties/')) {
        return json(200, {
          results: [{ name: 'email', type: 'string', fieldType: 'text', options: [], hasUniqueValue: false }],
        });
      }
      const body = JSON.parse(String(request.body)) as {
        inputs: Array<{ properties: { email: string }; objectWriteTraceId: string }>;
      };
      batches.push(body.inputs.length);
      if (body.inputs.some((i) => i.properties.email === taken)) {
        return json(409, {
          status: 'error',
          message: 'Contact already exists. Existing ID: 42',
          category: 'CONFLICT',
        });
      }
      return json(201, {
        status: 'COMPLETE',
        results: body.inputs.map((i) => ({ id: String(nextId++), objectWriteTraceId: i.objectWriteTraceId })),
      });
    },
  };
  return { session, batches };
}

test('a whole-batch 409 (nothing written) is split until the refused record stands alone; the others are written', async () => {
  const { session, batches } = fakeHubSpot('taken@example.com');
  const hs = new PerConnectionState({ clock: systemClock, pacer: { probe: false, max: 1000 } });
  const call: HandlerCall = { session, limiter: new ConcurrencyLimiter(4) };
  const records = Array.from({ length: 100 }, (_, i) => ({
    email: i === 37 ? 'taken@example.com' : `u${i}@example.com`,
  }));
  const answer = await hubspotWrites(hs).insert(call, { objectName: 'contacts', records });
  answer.data.forEach((r, i) => {
    if (i === 37) {
      assert.deepEqual(r, {
        success: false,
        errors: [{ statusCode: 'CONFLICT', message: 'Contact already exists. Existing ID: 42', fields: [] }],
      });
    } else {
      assert.equal(r.success, true, `record ${i}`);
    }
  });
  // 100 → 50 + 50 → … → the single refused record: one call per halving level on its side.
  assert.equal(batches[0], 100);
  assert.ok(batches.length <= 2 * Math.ceil(Math.log2(100)) + 1, `calls: ${batches.length}`);
  assert.equal(batches.filter((n) => n === 1).length >= 1, true);
});
