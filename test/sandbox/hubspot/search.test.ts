import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, startHubSpot } from './objects-helpers.ts';

type Hit = { id: string; properties: Record<string, string | null> };

test('search: groups are OR-ed, filters AND-ed; total and offset paging', async (t) => {
  const hs = await startHubSpot(t);
  const contacts = hs.portal.records.list('0-1');
  const adas = contacts.filter((c) => c.properties['firstname'] === 'Ada');
  const graces = contacts.filter((c) => c.properties['firstname'] === 'Grace');
  const r = await call(hs, 'POST', '/crm/v3/objects/contacts/search', {
    filterGroups: [
      { filters: [{ propertyName: 'firstname', operator: 'EQ', value: 'ada' }] },
      { filters: [{ propertyName: 'firstname', operator: 'EQ', value: 'Grace' }] },
    ],
    properties: ['firstname'],
    limit: 3,
  });
  assert.equal(r.status, 200);
  assert.equal(r.body.total, adas.length + graces.length);
  assert.equal(r.body.results.length, 3);
  assert.deepEqual(r.body.paging, { next: { after: '3' } });
  // default order: creation, oldest first
  const ids = r.body.results.map((x: Hit) => Number(x.id));
  assert.deepEqual(
    ids,
    [...ids].sort((a, b) => a - b),
  );
  const all: Hit[] = [];
  let after: string | undefined = '0';
  while (after !== undefined) {
    const page = await call(hs, 'POST', '/crm/v3/objects/contacts/search', {
      filterGroups: [
        { filters: [{ propertyName: 'firstname', operator: 'EQ', value: 'ada' }] },
        { filters: [{ propertyName: 'firstname', operator: 'EQ', value: 'Grace' }] },
      ],
      limit: 3,
      after,
    });
    all.push(...page.body.results);
    after = page.body.paging?.next.after;
  }
  assert.equal(all.length, adas.length + graces.length);
  const both = await call(hs, 'POST', '/crm/v3/objects/contacts/search', {
    filterGroups: [
      {
        filters: [
          { propertyName: 'firstname', operator: 'EQ', value: 'Ada' },
          { propertyName: 'lastname', operator: 'NEQ', value: adas[0]!.properties['lastname'] },
        ],
      },
    ],
  });
  assert.equal(
    both.body.total,
    adas.filter((a) => a.properties['lastname'] !== adas[0]!.properties['lastname']).length,
  );
});

test('search operators on numbers, dates, enumerations and tokens', async (t) => {
  const hs = await startHubSpot(t);
  const deals = hs.portal.records.list('0-3');
  const search = async (filters: unknown[], extra: Record<string, unknown> = {}) =>
    (
      await call(hs, 'POST', '/crm/v3/objects/deals/search', {
        filterGroups: [{ filters }],
        limit: 200,
        ...extra,
      })
    ).body;
  const amount = (d: { properties: Record<string, string> }) => Number(d.properties['amount']);
  const gt = await search([{ propertyName: 'amount', operator: 'GT', value: '20000' }]);
  assert.equal(gt.total, deals.filter((d) => amount(d) > 20000).length);
  const between = await search([
    { propertyName: 'amount', operator: 'BETWEEN', value: '5000', highValue: '20000' },
  ]);
  assert.equal(between.total, deals.filter((d) => amount(d) >= 5000 && amount(d) <= 20000).length);
  const cut = Date.UTC(2025, 6, 1);
  const lte = await search([{ propertyName: 'closedate', operator: 'LTE', value: String(cut) }]);
  assert.equal(lte.total, deals.filter((d) => Date.parse(d.properties['closedate']!) <= cut).length);
  const isoGte = await search([
    { propertyName: 'closedate', operator: 'GTE', value: new Date(cut).toISOString() },
  ]);
  assert.equal(
    isoGte.total + lte.total,
    deals.length + deals.filter((d) => Date.parse(d.properties['closedate']!) === cut).length,
  );
  const inStages = await search([
    { propertyName: 'dealstage', operator: 'IN', values: ['closedwon', 'closedlost'] },
  ]);
  assert.equal(
    inStages.total,
    deals.filter((d) => ['closedwon', 'closedlost'].includes(d.properties['dealstage']!)).length,
  );
  const notIn = await search([
    { propertyName: 'dealstage', operator: 'NOT_IN', values: ['closedwon', 'closedlost'] },
  ]);
  assert.equal(notIn.total + inStages.total, deals.length);
  // enumerations compare case-sensitively (documented)
  const upper = await search([{ propertyName: 'dealstage', operator: 'EQ', value: 'CLOSEDWON' }]);
  assert.equal(upper.total, 0);
  const token = await search([{ propertyName: 'dealname', operator: 'CONTAINS_TOKEN', value: 'renewal' }]);
  assert.equal(token.total, deals.filter((d) => /renewal/i.test(d.properties['dealname']!)).length);
  const wildcard = await search([{ propertyName: 'dealname', operator: 'CONTAINS_TOKEN', value: 'renew*' }]);
  assert.equal(wildcard.total, token.total);
  const notToken = await search([
    { propertyName: 'dealname', operator: 'NOT_CONTAINS_TOKEN', value: 'renewal' },
  ]);
  assert.equal(notToken.total, deals.length - token.total);
  const has = await search([{ propertyName: 'description', operator: 'HAS_PROPERTY' }]);
  const hasNot = await search([{ propertyName: 'description', operator: 'NOT_HAS_PROPERTY' }]);
  assert.equal(has.total, 0);
  assert.equal(hasNot.total, deals.length);
});

test('search sorts (object and string forms), query text and requested properties with nulls', async (t) => {
  const hs = await startHubSpot(t);
  const desc = await call(hs, 'POST', '/crm/v3/objects/deals/search', {
    sorts: [{ propertyName: 'amount', direction: 'DESCENDING' }],
    properties: ['amount', 'description', 'ghost_property'],
    limit: 200,
  });
  const amounts = desc.body.results.map((d: Hit) => Number(d.properties['amount']));
  assert.deepEqual(
    amounts,
    [...amounts].sort((a, b) => b - a),
  );
  assert.equal(desc.body.results[0].properties.description, null);
  assert.equal('ghost_property' in desc.body.results[0].properties, false);
  const asc = await call(hs, 'POST', '/crm/v3/objects/deals/search', { sorts: ['amount'], limit: 200 });
  const ascAmounts = asc.body.results.map((d: Hit) => Number(d.properties['amount']));
  assert.deepEqual(
    ascAmounts,
    [...ascAmounts].sort((a, b) => a - b),
  );
  const q = await call(hs, 'POST', '/crm/v3/objects/contacts/search', { query: 'lovelace' });
  assert.equal(
    q.body.total,
    hs.portal.records.list('0-1').filter((c) => c.properties['lastname'] === 'Lovelace').length,
  );
  assert.ok(q.body.total > 0);
});

test('search limits: filter groups, filters, limit, unknown property and operator', async (t) => {
  const hs = await startHubSpot(t);
  const f = { propertyName: 'firstname', operator: 'EQ', value: 'x' };
  const groups = (n: number, per: number) =>
    Array.from({ length: n }, () => ({ filters: Array.from({ length: per }, () => f) }));
  const ok = await call(hs, 'POST', '/crm/v3/objects/contacts/search', { filterGroups: groups(3, 6) });
  assert.equal(ok.status, 200);
  for (const body of [
    { filterGroups: groups(6, 1) },
    { filterGroups: groups(1, 7) },
    { filterGroups: groups(4, 5) },
    { limit: 201 },
    { filterGroups: [{ filters: [{ propertyName: 'no_such', operator: 'EQ', value: '1' }] }] },
    { filterGroups: [{ filters: [{ propertyName: 'firstname', operator: 'LIKE', value: '1' }] }] },
  ]) {
    const r = await call(hs, 'POST', '/crm/v3/objects/contacts/search', body);
    assert.equal(r.status, 400, JSON.stringify(body).slice(0, 60));
    assert.equal(r.body.category, 'VALIDATION_ERROR');
  }
  const ok200 = await call(hs, 'POST', '/crm/v3/objects/contacts/search', { limit: 200 });
  assert.equal(ok200.status, 200);
});

test('search stops at 10 000 results: no paging past them and after=10000 is a 400', async (t) => {
  const hs = await startHubSpot(t, { seed: false });
  const type = hs.portal.types.resolve('products')!;
  for (let i = 0; i < 10_050; i++) hs.portal.records.create(type, { name: `Widget ${i}`, price: String(i) });
  const body = {
    filterGroups: [{ filters: [{ propertyName: 'name', operator: 'CONTAINS_TOKEN', value: 'widget' }] }],
    limit: 100,
  };
  const near = await call(hs, 'POST', '/crm/v3/objects/products/search', { ...body, after: '9950' });
  assert.equal(near.status, 200);
  assert.equal(near.body.total, 10_050);
  assert.equal(near.body.results.length, 50);
  assert.equal(near.body.paging, undefined);
  const past = await call(hs, 'POST', '/crm/v3/objects/products/search', { ...body, after: '10000' });
  assert.equal(past.status, 400);
  assert.equal(past.body.category, 'VALIDATION_ERROR');
});

test('search is counted as objects.search and archived records never appear', async (t) => {
  const hs = await startHubSpot(t);
  const c = hs.portal.records.list('0-1')[0]!;
  await call(hs, 'DELETE', `/crm/v3/objects/contacts/${c.id}`);
  const r = await call(hs, 'POST', '/crm/v3/objects/contacts/search', {
    filterGroups: [{ filters: [{ propertyName: 'hs_object_id', operator: 'EQ', value: c.id }] }],
  });
  assert.equal(r.body.total, 0);
  assert.equal(hs.accounting.count('objects.search'), 1);
});

test('equality search follows updates: the new value is found, the old one no longer', async (t) => {
  const hs = await startHubSpot(t);
  const c = hs.portal.records.list('0-1')[2]!;
  const oldEmail = c.properties['email']!;
  const byEmail = (email: string) =>
    call(hs, 'POST', '/crm/v3/objects/contacts/search', {
      filterGroups: [{ filters: [{ propertyName: 'email', operator: 'EQ', value: email }] }],
    });
  assert.equal((await byEmail(oldEmail.toUpperCase())).body.total, 1);
  await call(hs, 'PATCH', `/crm/v3/objects/contacts/${c.id}`, { properties: { email: 'moved@example.com' } });
  assert.equal((await byEmail(oldEmail)).body.total, 0);
  const moved = await byEmail('moved@example.com');
  assert.equal(moved.body.total, 1);
  assert.equal(moved.body.results[0].id, c.id);
  // OR of two indexed groups, answered in creation order
  const two = await call(hs, 'POST', '/crm/v3/objects/contacts/search', {
    filterGroups: [
      { filters: [{ propertyName: 'email', operator: 'EQ', value: 'moved@example.com' }] },
      {
        filters: [
          {
            propertyName: 'email',
            operator: 'EQ',
            value: hs.portal.records.list('0-1')[0]!.properties['email'],
          },
        ],
      },
    ],
  });
  assert.deepEqual(
    two.body.results.map((r: Hit) => r.id),
    [hs.portal.records.list('0-1')[0]!.id, c.id],
  );
});
