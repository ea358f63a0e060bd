import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, startStack } from '../helpers/stack.ts';

interface Result {
  id?: string;
  success: boolean;
  errors: Array<{ statusCode: string; message: string; fields: string[] }>;
}
interface ErrorBody {
  error: { code: string; message: string; details: Array<{ path: string }> };
}

const post = <T>(s: Stack, path: string, body: unknown) => s.api<T>(path, { token: s.tokens.hubspot, body });

/** Association type ids of a stored record in the HubSpot sandbox, per target record. */
const linked = (s: Stack, from: string, id: string, to: string) =>
  s.hs.portal.associations.of(from, id, to).map((a) => [a.toObjectId, a.types.map((t) => t.typeId)]);

const primary = [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 1 }];

test('insert takes HubSpot create-body associations per record, in the batch create', async (t) => {
  const s = await startStack(t);
  const [company, other] = s.hs.portal.records.list('0-2');
  assert.ok(company && other);
  const res = await post<{ data: Result[] }>(s, '/v1/object/insert/contacts', {
    data: [
      { email: 'linked@example.com', associations: [{ to: { id: company.id }, types: primary }] },
      { email: 'plain@example.com' },
      { email: 'bad-link@example.com', associations: [{ to: { id: '99999999' }, types: primary }] },
      {
        email: 'two@example.com',
        associations: [{ to: { id: Number(other.id) }, types: [{ associationTypeId: 279 }] }],
      },
    ],
  });
  assert.equal(res.status, 200, res.text.slice(0, 300));
  const [one, plain, bad, two] = res.body.data;
  assert.equal(one?.success, true);
  assert.deepEqual(linked(s, '0-1', one?.id as string, '0-2'), [[company.id, [1]]]);
  // The inverse is on the company.
  assert.ok(s.hs.portal.associations.of('0-2', company.id, '0-1').some((a) => a.toObjectId === one?.id));
  assert.equal(plain?.success, true);
  assert.deepEqual(linked(s, '0-1', plain?.id as string, '0-2'), []);
  // HubSpot refuses the whole batch for a bad association: the batch is split, the bad record fails alone.
  assert.equal(bad?.success, false);
  assert.match(bad?.errors[0]?.message ?? '', /no COMPANY with id 99999999/);
  assert.equal(two?.success, true);
  assert.deepEqual(linked(s, '0-1', two?.id as string, '0-2'), [[other.id, [279]]]);
  assert.equal(s.hs.portal.records.findBy('0-1', 'email', 'bad-link@example.com'), undefined);
});

test("associations that are not HubSpot's shape are a 400 naming the field, before any write", async (t) => {
  const s = await startStack(t);
  const cases: Array<[unknown, string]> = [
    [{ to: '1001' }, '/data/0/associations'],
    [[{ to: { id: '1' } }], '/data/0/associations/0/types'],
    [[{ to: {}, types: primary }], '/data/0/associations/0/to/id'],
    [
      [{ to: { id: '1' }, types: [{ associationTypeId: 'one' }] }],
      '/data/0/associations/0/types/0/associationTypeId',
    ],
  ];
  for (const [associations, path] of cases) {
    const res = await post<ErrorBody>(s, '/v1/object/insert/contacts', {
      data: [{ email: 'shape@example.com', associations }],
    });
    assert.equal(res.status, 400, res.text.slice(0, 300));
    assert.equal(res.body.error.code, 'invalid_body');
    assert.equal(res.body.error.details[0]?.path, path);
    assert.match(res.body.error.message, /"associationTypeId"/);
  }
  assert.equal(s.hs.accounting.count('objects.batch.create'), 0);
});

test('upsert: a create carries the associations; an existing record refuses them, unwritten', async (t) => {
  const s = await startStack(t);
  const [company] = s.hs.portal.records.list('0-2');
  assert.ok(company);
  const record = {
    email: 'upsert-link@example.com',
    firstname: 'New',
    associations: [{ to: { id: company.id }, types: primary }],
  };
  const created = await post<{ data: Result[] }>(s, '/v1/object/upsert/contacts', {
    data: [record],
    match_key: 'email',
  });
  assert.equal(created.status, 200, created.text.slice(0, 300));
  const id = created.body.data[0]?.id as string;
  assert.equal(created.body.data[0]?.success, true);
  assert.deepEqual(linked(s, '0-1', id, '0-2'), [[company.id, [1]]]);
  const again = await post<{ data: Result[] }>(s, '/v1/object/upsert/contacts', {
    data: [{ ...record, firstname: 'Changed' }],
    match_key: 'email',
  });
  const result = again.body.data[0];
  assert.equal(result?.success, false);
  assert.equal(result?.errors[0]?.statusCode, 'ASSOCIATIONS_ON_UPDATE');
  assert.deepEqual(result?.errors[0]?.fields, ['associations']);
  assert.equal(s.hs.portal.records.get('0-1', id)?.properties['firstname'], 'New');
  // Without associations the same upsert updates (HubSpot's own upsert on the unique email).
  const { associations: _, ...withoutLinks } = record;
  const updated = await post<{ data: Result[] }>(s, '/v1/object/upsert/contacts', {
    data: [{ ...withoutLinks, firstname: 'Changed' }],
    match_key: 'email',
  });
  assert.equal(updated.body.data[0]?.success, true);
  assert.equal(s.hs.portal.records.get('0-1', id)?.properties['firstname'], 'Changed');
});
