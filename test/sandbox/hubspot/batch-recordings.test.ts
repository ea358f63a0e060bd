import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { call, startHubSpot } from './objects-helpers.ts';

interface Recorded {
  request_body: { inputs: { id?: string; properties: Record<string, string> }[] } & Record<string, unknown>;
  status: number;
  response_body: { results: { properties: Record<string, string | null> }[] };
}

/** Real answers recorded from a HubSpot account (see test/fixtures/README.md). */
function recordings(): Record<string, Recorded[]> {
  return JSON.parse(
    readFileSync(new URL('../../fixtures/recordings/hubspot-v3.json', import.meta.url), 'utf8'),
  );
}

const keysOf = (r: { properties: Record<string, unknown> }) => Object.keys(r.properties);

/** The recorded account had these custom contact properties. */
function addRecordedContactProperties(hs: Awaited<ReturnType<typeof startHubSpot>>): void {
  for (const [name, type, fieldType] of [
    ['text_field', 'string', 'text'],
    ['number_field', 'number', 'number'],
    ['date_field', 'date', 'date'],
  ] as const) {
    hs.portal.properties.create(
      '0-1',
      { name, label: name, type, fieldType, groupName: 'contactinformation' },
      '1',
    );
  }
}

test('replayed recorded batch creates answer with the recorded status and property keys', async (t) => {
  const rec = recordings();
  const hs = await startHubSpot(t);
  let replayed = 0;
  for (const [key, path] of [
    ['POST /crm/v3/objects/CONTACT/batch/create -> 201', '/crm/v3/objects/CONTACT/batch/create'],
    ['POST /crm/v3/objects/COMPANY/batch/create -> 201', '/crm/v3/objects/COMPANY/batch/create'],
  ] as const) {
    for (const entry of rec[key] ?? []) {
      await call(hs, 'POST', '/__sandbox/reset');
      addRecordedContactProperties(hs);
      const r = await call(hs, 'POST', path, entry.request_body);
      assert.equal(r.status, entry.status, key);
      assert.deepEqual(r.body.results.map(keysOf), entry.response_body.results.map(keysOf), key);
      replayed += 1;
    }
  }
  assert.ok(replayed >= 4);
});

test('replayed recorded batch updates answer with the recorded property keys (contacts: sent + recomputed only)', async (t) => {
  const rec = recordings();
  const hs = await startHubSpot(t);
  addRecordedContactProperties(hs);
  const contact = await call(hs, 'POST', '/crm/v3/objects/contacts', {
    properties: { email: 'grouparoo@demo.com', firstname: 'John' },
  });
  const contactUpdate = rec['POST /crm/v3/objects/CONTACT/batch/update -> 200']![0]!;
  const input = { ...contactUpdate.request_body.inputs[0]!, id: contact.body.id };
  const r = await call(hs, 'POST', '/crm/v3/objects/CONTACT/batch/update', { inputs: [input] });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.results.map(keysOf), contactUpdate.response_body.results.map(keysOf));

  const company = await call(hs, 'POST', '/crm/v3/objects/companies', {
    properties: { name: 'John', domain: 'grouparoo.demo.com' },
  });
  const companyUpdate = rec['POST /crm/v3/objects/COMPANY/batch/update -> 200']![0]!;
  const cInput = { ...companyUpdate.request_body.inputs[0]!, id: company.body.id };
  const c = await call(hs, 'POST', '/crm/v3/objects/COMPANY/batch/update', { inputs: [cInput] });
  assert.equal(c.status, 200);
  assert.deepEqual(c.body.results.map(keysOf), companyUpdate.response_body.results.map(keysOf));
  assert.equal(c.body.results[0].properties.facebookfans, '3039');
});

test('replayed recorded search: requested-but-unset properties are null, unknown ones left out', async (t) => {
  const rec = recordings();
  const hs = await startHubSpot(t);
  addRecordedContactProperties(hs);
  await call(hs, 'POST', '/crm/v3/objects/contacts', {
    properties: { email: 'grouparoo@demo.com', firstname: 'John' },
  });
  const entry = rec['POST /crm/v3/objects/CONTACT/search -> 200']![0]!;
  const r = await call(hs, 'POST', '/crm/v3/objects/CONTACT/search', entry.request_body);
  assert.equal(r.status, 200);
  assert.equal(r.body.total, 1);
  assert.deepEqual(r.body.results.map(keysOf), entry.response_body.results.map(keysOf));
  assert.equal(r.body.results[0].properties.lastname, null);
});
