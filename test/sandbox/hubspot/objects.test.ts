import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, startHubSpot } from './objects-helpers.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

test('list answers the default property set, string values and cursor paging with a link', async (t) => {
  const hs = await startHubSpot(t);
  const first = await call(hs, 'GET', '/crm/v3/objects/contacts?limit=3');
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('content-type'), 'application/json;charset=utf-8');
  assert.match(first.headers.get('x-hubspot-correlation-id') ?? '', UUID);
  assert.equal(first.body.results.length, 3);
  const c = first.body.results[0];
  assert.deepEqual(Object.keys(c.properties), [
    'createdate',
    'email',
    'firstname',
    'hs_object_id',
    'lastmodifieddate',
    'lastname',
  ]);
  assert.equal(c.properties.hs_object_id, c.id);
  assert.match(c.id, /^\d+$/);
  assert.match(c.createdAt, ISO_MS);
  assert.equal(c.archived, false);
  const next = first.body.paging.next;
  assert.match(next.after, /^\d+$/);
  assert.equal(next.link, `${hs.url}/crm/v3/objects/contacts?limit=3&after=${next.after}`);
  const second = await call(hs, 'GET', `/crm/v3/objects/contacts?limit=3&after=${next.after}`);
  assert.equal(second.body.results[0].id, next.after);
  // every seeded contact is reachable by paging; the last page has no `paging`
  let after = '';
  let seen = 0;
  for (;;) {
    const page = await call(hs, 'GET', `/crm/v3/objects/contacts?limit=100${after ? `&after=${after}` : ''}`);
    seen += page.body.results.length;
    if (page.body.paging === undefined) break;
    after = page.body.paging.next.after;
  }
  assert.equal(seen, hs.portal.records.list('0-1').length);
});

test('limit above 100 is capped at 100 on lists', async (t) => {
  const hs = await startHubSpot(t);
  const r = await call(hs, 'GET', '/crm/v3/objects/0-1?limit=500');
  assert.equal(r.status, 200);
  assert.equal(r.body.results.length, Math.min(100, hs.portal.records.list('0-1').length));
});

test('default property sets differ per type and requested unknown names are left out', async (t) => {
  const hs = await startHubSpot(t);
  const deals = await call(hs, 'GET', '/crm/v3/objects/deals?limit=1');
  assert.deepEqual(Object.keys(deals.body.results[0].properties), [
    'amount',
    'closedate',
    'createdate',
    'dealname',
    'dealstage',
    'hs_lastmodifieddate',
    'hs_object_id',
    'pipeline',
  ]);
  const cars = await call(hs, 'GET', '/crm/v3/objects/2-3604285?limit=1');
  assert.deepEqual(Object.keys(cars.body.results[0].properties), [
    'hs_createdate',
    'hs_lastmodifieddate',
    'hs_object_id',
  ]);
  const id = deals.body.results[0].id;
  const one = await call(
    hs,
    'GET',
    `/crm/v3/objects/deals/${id}?properties=dealname&properties=no_such_property,description`,
  );
  assert.equal(one.status, 200);
  // description exists but is unset: null; no_such_property is silently ignored
  assert.deepEqual(Object.keys(one.body.properties), [
    'createdate',
    'dealname',
    'description',
    'hs_lastmodifieddate',
    'hs_object_id',
  ]);
  assert.equal(one.body.properties.description, null);
});

test('object types resolve by name, upper-case singular, type id and custom names', async (t) => {
  const hs = await startHubSpot(t);
  for (const ref of ['contacts', 'CONTACT', 'Contact', '0-1']) {
    const r = await call(hs, 'GET', `/crm/v3/objects/${ref}?limit=1`);
    assert.equal(r.status, 200, ref);
  }
  for (const ref of [
    'companies',
    'deals',
    'tickets',
    'products',
    'line_items',
    'quotes',
    'feedback_submissions',
    'goal_targets',
    'discounts',
    'fees',
    'taxes',
    '0-84',
    '0-85',
    '0-86',
  ]) {
    const r = await call(hs, 'GET', `/crm/v3/objects/${ref}?limit=1`);
    assert.equal(r.status, 200, ref);
    assert.equal(r.body.results.length, 1, ref);
  }
  for (const ref of ['2-3604285', `p${hs.portal.portalId}_cars`, 'p_cars']) {
    const r = await call(hs, 'GET', `/crm/v3/objects/${ref}?limit=1`);
    assert.equal(r.status, 200, ref);
  }
  // HubSpot does not accept a custom type's plain name; captured answer: 400 without category
  const plain = await call(hs, 'GET', '/crm/v3/objects/cars');
  assert.equal(plain.status, 400);
  assert.equal(plain.body.message, 'Unable to infer object type from: cars');
  assert.equal(plain.body.status, 'error');
  assert.match(plain.body.correlationId, UUID);
  assert.equal(plain.headers.get('x-hubspot-correlation-id'), plain.body.correlationId);
});

test('create answers 201 with string values and server-set properties; values are normalised', async (t) => {
  const hs = await startHubSpot(t);
  const r = await call(hs, 'POST', '/crm/v3/objects/deals', {
    properties: {
      dealname: 'Big one',
      amount: 1500.5,
      closedate: '1735689600000',
      dealstage: 'closedwon',
      pipeline: 'default',
    },
  });
  assert.equal(r.status, 201);
  assert.equal(r.body.properties.amount, '1500.5');
  assert.equal(r.body.properties.closedate, '2025-01-01T00:00:00.000Z');
  assert.equal(r.body.properties.hs_object_id, r.body.id);
  assert.match(r.body.properties.createdate, ISO_MS);
  assert.equal(r.body.createdAt, r.body.properties.createdate);
  const car = await call(hs, 'POST', '/crm/v3/objects/p_cars', {
    properties: { vin: 'VIN-TEST-1', year: '2020', first_registered: '1577836800000' },
  });
  assert.equal(car.status, 201);
  // date-only properties come back as YYYY-MM-DD
  assert.equal(car.body.properties.first_registered, '2020-01-01');
  const notMidnight = await call(hs, 'POST', '/crm/v3/objects/p_cars', {
    properties: { vin: 'VIN-TEST-2', first_registered: '1577836800001' },
  });
  assert.equal(notMidnight.status, 400);
  assert.equal(notMidnight.body.errors[0].code, 'INVALID_DATE');
});

test('unknown properties on writes give the Property values were not valid 400', async (t) => {
  const hs = await startHubSpot(t);
  const r = await call(hs, 'POST', '/crm/v3/objects/contacts', {
    properties: { email: 'new@example.com', favourite_colour: 'blue', lifecyclestage: 'not-a-stage' },
  });
  assert.equal(r.status, 400);
  assert.equal(r.body.category, 'VALIDATION_ERROR');
  assert.ok(r.body.message.startsWith('Property values were not valid: ['));
  const embedded = JSON.parse(r.body.message.slice('Property values were not valid: '.length));
  assert.deepEqual(embedded[0], {
    isValid: false,
    message: 'Property "favourite_colour" does not exist',
    error: 'PROPERTY_DOESNT_EXIST',
    name: 'favourite_colour',
    localizedErrorMessage: 'Property "favourite_colour" does not exist',
    portalId: hs.portal.portalId,
  });
  assert.deepEqual(r.body.errors[0], {
    message: 'Property "favourite_colour" does not exist',
    code: 'PROPERTY_DOESNT_EXIST',
    context: { propertyName: ['favourite_colour'] },
  });
  assert.equal(r.body.errors[1].code, 'INVALID_OPTION');
  assert.equal(r.body.errors[1].context.propertyName[0], 'lifecyclestage');
  // nothing was written
  assert.equal(hs.portal.records.findBy('0-1', 'email', 'new@example.com'), undefined);
});

test('a duplicate contact email is a 409 CONFLICT naming the existing id', async (t) => {
  const hs = await startHubSpot(t);
  const existing = hs.portal.records.list('0-1')[0]!;
  const email = existing.properties['email']!;
  const r = await call(hs, 'POST', '/crm/v3/objects/contacts', {
    properties: { email: email.toUpperCase() },
  });
  assert.equal(r.status, 409);
  assert.equal(r.body.category, 'CONFLICT');
  assert.equal(r.body.message, `Contact already exists. Existing ID: ${existing.id}`);
});

test('get by idProperty, update with PATCH, archive with DELETE, then archived=true finds it', async (t) => {
  const hs = await startHubSpot(t);
  const existing = hs.portal.records.list('0-1')[1]!;
  const email = existing.properties['email']!;
  const byEmail = await call(
    hs,
    'GET',
    `/crm/v3/objects/contacts/${encodeURIComponent(email)}?idProperty=email`,
  );
  assert.equal(byEmail.status, 200);
  assert.equal(byEmail.body.id, existing.id);
  const patched = await call(hs, 'PATCH', `/crm/v3/objects/contacts/${existing.id}`, {
    properties: { lastname: '' },
  });
  assert.equal(patched.status, 200);
  // contacts: update answers show only sent and recomputed properties (captured)
  assert.deepEqual(Object.keys(patched.body.properties), ['lastmodifieddate', 'lastname']);
  assert.equal(patched.body.properties.lastname, '');
  const deleted = await call(hs, 'DELETE', `/crm/v3/objects/contacts/${existing.id}`);
  assert.equal(deleted.status, 204);
  assert.equal(deleted.body, undefined);
  const gone = await call(hs, 'GET', `/crm/v3/objects/contacts/${existing.id}`);
  assert.equal(gone.status, 404);
  assert.deepEqual(Object.keys(gone.body).sort(), ['correlationId', 'message', 'status']);
  assert.equal(gone.body.message, 'resource not found');
  const archived = await call(hs, 'GET', `/crm/v3/objects/contacts/${existing.id}?archived=true`);
  assert.equal(archived.status, 200);
  assert.equal(archived.body.archived, true);
  assert.match(archived.body.archivedAt, ISO_MS);
});

test('non-numeric ids without idProperty are OBJECT_NOT_FOUND; feedback submissions are read-only', async (t) => {
  const hs = await startHubSpot(t);
  const r = await call(hs, 'GET', '/crm/v3/objects/contacts/abc');
  assert.equal(r.status, 404);
  assert.equal(r.body.category, 'OBJECT_NOT_FOUND');
  assert.deepEqual(r.body.context, { id: ['abc'] });
  const fb = await call(hs, 'POST', '/crm/v3/objects/feedback_submissions', {
    properties: { hs_value: '9' },
  });
  assert.equal(fb.status, 400);
  const list = await call(hs, 'GET', '/crm/v3/objects/feedback_submissions');
  assert.equal(list.status, 200);
  assert.ok(list.body.results.length > 0);
});

test('propertiesWithHistory returns each value with its timestamp and source', async (t) => {
  const hs = await startHubSpot(t);
  const id = hs.portal.records.list('0-2')[0]!.id;
  await call(hs, 'PATCH', `/crm/v3/objects/companies/${id}`, { properties: { city: 'Lisbon' } });
  const r = await call(
    hs,
    'GET',
    `/crm/v3/objects/companies/${id}?properties=city&propertiesWithHistory=city`,
  );
  const history = r.body.propertiesWithHistory.city;
  assert.equal(history.length, 2);
  assert.equal(history[0].value, 'Lisbon');
  assert.equal(history[0].sourceType, 'API');
  assert.match(history[0].timestamp, ISO_MS);
});

test('authentication: no token, unknown token and an expired token get HubSpot 401 bodies', async (t) => {
  const hs = await startHubSpot(t);
  const none = await fetch(`${hs.url}/crm/v3/objects/contacts`);
  assert.equal(none.status, 401);
  const noneBody = (await none.json()) as { category: string };
  assert.equal(noneBody.category, 'INVALID_AUTHENTICATION');
  const expire = await fetch(`${hs.url}/__sandbox/tokens/expire`, { method: 'POST' });
  assert.equal(expire.status, 204);
  const expired = await call(hs, 'GET', '/crm/v3/objects/contacts');
  assert.equal(expired.status, 401);
  assert.equal(expired.body.category, 'EXPIRED_AUTHENTICATION');
  assert.match(
    expired.body.message,
    /^The OAuth token used to make this call expired \d+ (second|minute)\(s\) ago\.$/,
  );
  assert.ok(Array.isArray(expired.body.context['expire time']));
  // the private-app token does not expire
  const pat = await fetch(`${hs.url}/crm/v3/objects/contacts?limit=1`, {
    headers: { authorization: `Bearer ${hs.credentials.privateAppToken}` },
  });
  assert.equal(pat.status, 200);
});

test('injected faults render in HubSpot format and reset restores the seed', async (t) => {
  const hs = await startHubSpot(t);
  hs.realism.script([
    { kind: 'error500', match: 'objects.get' },
    { kind: 'rateLimit', match: 'objects.list' },
    { kind: 'rateLimit', match: 'objects.search' },
    { kind: 'expireToken', match: 'objects.create' },
    { kind: 'lock', match: 'objects.update' },
  ]);
  const id = hs.portal.records.list('0-1')[0]!.id;
  const e500 = await call(hs, 'GET', `/crm/v3/objects/contacts/${id}`);
  assert.equal(e500.status, 500);
  assert.equal(e500.body.message, 'internal error');
  assert.equal(e500.body.category, 'INTERNAL_ERROR');
  const e429 = await call(hs, 'GET', '/crm/v3/objects/contacts');
  assert.equal(e429.status, 429);
  assert.equal(e429.body.policyName, 'TEN_SECONDLY_ROLLING');
  assert.equal(e429.body.category, 'RATE_LIMITS');
  const s429 = await call(hs, 'POST', '/crm/v3/objects/contacts/search', {});
  assert.equal(s429.body.message, 'You have reached your secondly limit.');
  const e401 = await call(hs, 'POST', '/crm/v3/objects/contacts', { properties: {} });
  assert.equal(e401.status, 401);
  assert.equal(e401.body.category, 'EXPIRED_AUTHENTICATION');
  const e423 = await call(hs, 'PATCH', `/crm/v3/objects/contacts/${id}`, { properties: {} });
  assert.equal(e423.status, 423);
  await call(hs, 'DELETE', `/crm/v3/objects/contacts/${id}`);
  assert.equal(hs.portal.records.get('0-1', id), undefined);
  const reset = await fetch(`${hs.url}/__sandbox/reset`, { method: 'POST' });
  assert.equal(reset.status, 204);
  assert.equal(hs.portal.records.get('0-1', id)?.id, id);
  assert.equal(hs.accounting.count('objects'), 6);
});
