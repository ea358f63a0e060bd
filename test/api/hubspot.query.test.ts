import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, startStack } from '../helpers/stack.ts';

interface Page {
  data: {
    totalSize: number;
    done: boolean;
    records: Array<{ id: string; properties: Record<string, string | null> }>;
    next_cursor: string | null;
  };
}
interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
}

/** A query through the API; HubSpot's search pacing passes on the stack's clock, not in real time. */
const query = <T = Page>(s: Stack, object: string, body: unknown, token = s.tokens.hubspot) =>
  s.clock.fastForward(s.api<T>(`/v1/object/query/${object}`, { token, body }));

function count429(s: Stack): { n: number } {
  const seen = { n: 0 };
  s.ctx.client.addHook((event) => {
    if (event.status === 429) seen.n += 1;
  });
  return seen;
}

test('search follows HubSpot pages under 5 searches per second, then continues with a signed cursor', async (t) => {
  const s = await startStack(t);
  const refusals = count429(s);
  const n = 2_500;
  const inserted = await s.api<{ data: Array<{ success: boolean }> }>('/v1/object/insert/contacts', {
    token: s.tokens.hubspot,
    body: {
      data: Array.from({ length: n }, (_, i) => ({
        email: `q${String(i).padStart(5, '0')}@example.com`,
        jobtitle: 'Searcher "quoted" \\ title',
      })),
    },
  });
  assert.ok(inserted.body.data.every((r) => r.success));

  const request = {
    data: {
      filterGroups: [
        { filters: [{ propertyName: 'jobtitle', operator: 'EQ', value: 'Searcher "quoted" \\ title' }] },
      ],
      sorts: [{ propertyName: 'email', direction: 'ASCENDING' }],
      properties: ['email', 'JobTitle'],
    },
  };
  const first = await query(s, 'contacts', request);
  assert.equal(first.status, 200, first.text.slice(0, 300));
  assert.equal(first.body.data.totalSize, n);
  assert.equal(first.body.data.records.length, 2_000);
  assert.equal(first.body.data.done, false);
  assert.equal(first.body.data.records[0]?.properties['email'], 'q00000@example.com');
  assert.ok(first.body.data.next_cursor);

  const second = await query(s, 'contacts', { cursor: first.body.data.next_cursor });
  assert.equal(second.status, 200, second.text.slice(0, 300));
  assert.equal(second.body.data.records.length, 500);
  assert.equal(second.body.data.done, true);
  assert.equal(second.body.data.next_cursor, null);
  const emails = [...first.body.data.records, ...second.body.data.records].map((r) => r.properties['email']);
  assert.equal(new Set(emails).size, n, 'every record once');
  assert.equal(emails.at(-1), 'q02499@example.com');
  assert.equal(s.hs.accounting.count('objects.search'), 13, 'pages of 200');
  assert.equal(refusals.n, 0);

  const small = await query(s, 'contacts', { data: { ...request.data, limit: 3 } });
  assert.equal(small.body.data.records.length, 3);
  assert.ok(small.body.data.next_cursor);
});

test('search refuses forged cursors, unknown properties and both or neither of data and cursor; Salesforce has no search', async (t) => {
  const s = await startStack(t);
  const page = await query(s, 'contacts', { data: { limit: 1 } });
  assert.equal(page.status, 200, page.text.slice(0, 300));
  const cursor = page.body.data.next_cursor as string;
  const [body, mac] = cursor.split('.');
  const forged = `${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body as string, 'base64url').toString()), a: '9000' })).toString('base64url')}.${mac}`;
  const refused = await query<ErrorBody>(s, 'contacts', { cursor: forged });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error.code, 'invalid_cursor');

  const unknown = await query<ErrorBody>(s, 'contacts', {
    data: { filterGroups: [{ filters: [{ propertyName: 'emial', operator: 'EQ', value: 'x' }] }] },
  });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.error.code, 'unknown_field');
  assert.equal(unknown.body.error.details[0]?.['did_you_mean'], 'email');

  const both = await query<ErrorBody>(s, 'contacts', { data: {}, cursor });
  assert.equal(both.status, 400);
  assert.equal(both.body.error.code, 'invalid_body');

  const sf = await query<ErrorBody>(s, 'Account', { data: {} }, s.tokens.salesforce);
  assert.equal(sf.status, 422);
  assert.equal(sf.body.error.code, 'operation_not_available');
});
