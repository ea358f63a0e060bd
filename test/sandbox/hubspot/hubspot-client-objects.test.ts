import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@hubspot/api-client';
import { FilterOperatorEnum } from '@hubspot/api-client/lib/codegen/crm/objects/models/Filter.js';
import { startHubSpot } from './objects-helpers.ts';

/** The official client, unpatched, pointed at the sandbox. */
async function client(t: Parameters<typeof startHubSpot>[0]) {
  const hs = await startHubSpot(t);
  return { hs, hubspot: new Client({ accessToken: hs.credentials.accessToken, basePath: hs.url }) };
}

test('client: basicApi getPage follows the paging cursor and getById reads by id and by email', async (t) => {
  const { hs, hubspot } = await client(t);
  const page = await hubspot.crm.contacts.basicApi.getPage(5, undefined, ['email', 'firstname']);
  assert.equal(page.results.length, 5);
  assert.ok(page.paging?.next?.after);
  const next = await hubspot.crm.contacts.basicApi.getPage(5, page.paging?.next?.after, ['email']);
  assert.notEqual(next.results[0]!.id, page.results[0]!.id);
  const first = page.results[0]!;
  assert.ok(first.createdAt instanceof Date);
  const one = await hubspot.crm.contacts.basicApi.getById(first.id, ['email']);
  assert.equal(one.properties['email'], first.properties['email']);
  const byEmail = await hubspot.crm.contacts.basicApi.getById(
    first.properties['email']!,
    ['firstname'],
    undefined,
    undefined,
    false,
    'email',
  );
  assert.equal(byEmail.id, first.id);
  // the generic objects API with the upper-case name works too (as in recorded traffic)
  const generic = await hubspot.crm.objects.basicApi.getPage('COMPANY', 2);
  assert.equal(generic.results.length, 2);
  await assert.rejects(
    hubspot.crm.contacts.basicApi.getById('99999999'),
    (e: { code: number }) => e.code === 404,
  );
  assert.equal(hs.accounting.count('objects.get'), 3);
});

test('client: batch read with missing ids resolves with the multi-status errors (no throw)', async (t) => {
  const { hs, hubspot } = await client(t);
  const [a, b] = hs.portal.records.list('0-1');
  const res = await hubspot.crm.contacts.batchApi.read({
    inputs: [{ id: a!.id }, { id: '424242424' }, { id: b!.id }],
    properties: ['email'],
    // Required by the client's model; plain callers omit it and HubSpot (and the sandbox) accept that.
    propertiesWithHistory: [],
  });
  // The SDK declares 207 a success of type BatchResponseSimplePublicObjectWithErrors.
  assert.equal(res.results.length, 2);
  assert.ok('errors' in res);
  const errors = (res as { errors?: { category: string; context: Record<string, string[]> }[] }).errors ?? [];
  assert.equal(errors[0]?.category, 'OBJECT_NOT_FOUND');
  assert.deepEqual(errors[0]?.context['ids'], ['424242424']);
  assert.equal((res as { numErrors?: number }).numErrors, 1);
});

test('client: batch create, update, upsert and archive', async (t) => {
  const { hs, hubspot } = await client(t);
  const created = await hubspot.crm.contacts.batchApi.create({
    inputs: [
      { properties: { email: 'one@client.example', firstname: 'One' }, associations: [] },
      { properties: { email: 'two@client.example', firstname: 'Two' }, associations: [] },
    ],
  });
  assert.equal(created.results.length, 2);
  assert.equal(created.status, 'COMPLETE');
  assert.ok(created.startedAt instanceof Date);
  const ids = created.results.map((r) => r.id);
  const updated = await hubspot.crm.contacts.batchApi.update({
    inputs: ids.map((id) => ({ id, properties: { lastname: 'Client' } })),
  });
  assert.deepEqual(
    updated.results.map((r) => r.properties['lastname']),
    ['Client', 'Client'],
  );
  // The spec prose puts idProperty in the query string; the client sends it in each input, which is
  // what HubSpot reads (documented upsert examples), so the sandbox reads it there.
  const upserted = await hubspot.crm.contacts.batchApi.upsert({
    inputs: [
      { id: 'one@client.example', idProperty: 'email', properties: { firstname: 'Uno' } },
      { id: 'three@client.example', idProperty: 'email', properties: { firstname: 'Three' } },
    ],
  });
  // The SDK maps the wire's `new` to `_new`.
  assert.deepEqual(upserted.results.map((r) => r._new).sort(), [false, true]);
  await hubspot.crm.contacts.batchApi.archive({ inputs: ids.map((id) => ({ id })) });
  assert.equal(hs.portal.records.get('0-1', ids[0]!), undefined);
  assert.equal(
    hs.portal.records.findBy('0-1', 'email', 'three@client.example')?.properties['firstname'],
    'Three',
  );
});

test('client: basicApi create / update / archive; unknown property surfaces as a 400 ApiException', async (t) => {
  const { hubspot } = await client(t);
  const deal = await hubspot.crm.deals.basicApi.create({
    properties: { dealname: 'Client deal', amount: '99', pipeline: 'default', dealstage: 'qualifiedtobuy' },
    associations: [],
  });
  assert.match(deal.id, /^\d+$/);
  const patched = await hubspot.crm.deals.basicApi.update(deal.id, { properties: { amount: '100' } });
  assert.equal(patched.properties['amount'], '100');
  await hubspot.crm.deals.basicApi.archive(deal.id);
  await assert.rejects(
    hubspot.crm.deals.basicApi.create({ properties: { dealname: 'x', no_such: 'y' }, associations: [] }),
    (e: { code: number; body: { category: string; errors: { code: string }[] } }) =>
      e.code === 400 &&
      e.body.category === 'VALIDATION_ERROR' &&
      e.body.errors[0]?.code === 'PROPERTY_DOESNT_EXIST',
  );
});

test('client: search with filters, sorts and paging', async (t) => {
  const { hs, hubspot } = await client(t);
  const deals = hs.portal.records.list('0-3');
  const expected = deals.filter((d) => Number(d.properties['amount']) >= 10000);
  const seen: string[] = [];
  let after: string | undefined = '0';
  let total = -1;
  while (after !== undefined) {
    // Docs show sorts as objects ({propertyName, direction}); the spec and this client type them as
    // strings ("-amount" = descending). HubSpot accepts both, and so does the sandbox.
    const page = await hubspot.crm.deals.searchApi.doSearch({
      filterGroups: [
        { filters: [{ propertyName: 'amount', operator: FilterOperatorEnum.Gte, value: '10000' }] },
      ],
      sorts: ['-amount'],
      properties: ['amount', 'dealname'],
      limit: 4,
      after,
    });
    total = page.total;
    seen.push(...page.results.map((r) => r.properties['amount'] ?? ''));
    after = page.paging?.next?.after;
  }
  assert.equal(total, expected.length);
  assert.equal(seen.length, expected.length);
  const nums = seen.map(Number);
  assert.deepEqual(
    nums,
    [...nums].sort((a, b) => b - a),
  );
});

test('client: custom object records through crm.objects with the 2-… type id', async (t) => {
  const { hubspot } = await client(t);
  const created = await hubspot.crm.objects.basicApi.create('2-3604285', {
    properties: { vin: 'CLIENT-VIN-1', make: 'Lada', year: '1988' },
    associations: [],
  });
  assert.equal(created.properties['hs_object_id'], created.id);
  const read = await hubspot.crm.objects.basicApi.getById('2-3604285', created.id, ['vin', 'make']);
  assert.equal(read.properties['make'], 'Lada');
  const batch = await hubspot.crm.objects.batchApi.read('2-3604285', {
    inputs: [{ id: 'CLIENT-VIN-1' }],
    idProperty: 'vin',
    properties: ['vin'],
    propertiesWithHistory: [],
  });
  assert.equal(batch.results[0]?.id, created.id);
  const found = await hubspot.crm.objects.searchApi.doSearch('2-3604285', {
    filterGroups: [{ filters: [{ propertyName: 'year', operator: FilterOperatorEnum.Lt, value: '1990' }] }],
    properties: ['vin'],
    limit: 10,
    after: '0',
    sorts: [],
  });
  assert.equal(found.total, 1);
  assert.equal(found.results[0]?.properties['vin'], 'CLIENT-VIN-1');
  // missing required property of the schema (vin) is refused
  await assert.rejects(
    hubspot.crm.objects.basicApi.create('2-3604285', { properties: { make: 'NoVin' }, associations: [] }),
    (e: { code: number }) => e.code === 400,
  );
});

test('client retries: 5xx and the search secondly 429 are retried by numberOfApiCallRetries', async (t) => {
  const hs = await startHubSpot(t);
  const hubspot = new Client({
    accessToken: hs.credentials.accessToken,
    basePath: hs.url,
    numberOfApiCallRetries: 3,
  });
  const id = hs.portal.records.list('0-1')[0]!.id;
  hs.realism.script([{ kind: 'error503', match: 'objects.get', times: 2 }]);
  const one = await hubspot.crm.contacts.basicApi.getById(id);
  assert.equal(one.id, id);
  assert.equal(hs.accounting.count('objects.get'), 3);
  // The client keys its search back-off on this exact message (RetryDecorator).
  hs.realism.script([{ kind: 'rateLimit', match: 'objects.search', times: 1 }]);
  const found = await hubspot.crm.contacts.searchApi.doSearch({
    filterGroups: [],
    sorts: [],
    properties: [],
    limit: 1,
    after: '0',
  });
  assert.equal(found.results.length, 1);
  assert.equal(hs.accounting.count('objects.search'), 2);
});
