import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADDRESS_COUNTRIES } from '../../sandbox/salesforce/seed/address-picklists.ts';
import { startStack } from '../helpers/stack.ts';

interface Entry {
  code: string;
  label: string;
  active: boolean;
  visible: boolean;
}
interface Countries {
  data: { source: string; countries: Array<Entry & { states: Entry[] }> };
}
interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
}

const byCode = (a: { code: string }, b: { code: string }) => a.code.localeCompare(b.code);

test("countries: the org's State and Country/Territory Picklists, each state under the country its validFor names", async (t) => {
  const s = await startStack(t);
  const answer = await s.api<Countries>('/v1/countries');
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.data.source, 'org_picklists');

  // Expected from the sandbox's own table, not from its describe: the validFor bitmaps are decoded
  // by the service alone.
  assert.deepEqual(
    answer.body.data.countries.map(({ code, label, active, visible }) => ({ code, label, active, visible })),
    ADDRESS_COUNTRIES.map(({ code, label }) => ({ code, label, active: true, visible: true })),
  );
  for (const country of ADDRESS_COUNTRIES) {
    const got = answer.body.data.countries.find((c) => c.code === country.code);
    assert.deepEqual(
      [...(got?.states ?? [])].sort(byCode),
      country.states.map((st) => ({ ...st, active: true, visible: true })).sort(byCode),
      country.code,
    );
  }
  // A code several countries use lands under each with its own label.
  const states = (code: string) => answer.body.data.countries.find((c) => c.code === code)?.states ?? [];
  assert.equal(states('US').find((st) => st.code === 'WA')?.label, 'Washington');
  assert.equal(states('AU').find((st) => st.code === 'WA')?.label, 'Western Australia');
  assert.equal(states('CA').find((st) => st.code === 'NT')?.label, 'Northwest Territories');
  assert.deepEqual(states('DE'), []);

  // Read from the cached Account describe: a second answer costs no CRM call.
  s.sf.accounting.reset();
  assert.deepEqual((await s.api<Countries>('/v1/countries', { body: {} })).body, answer.body);
  assert.equal(s.sf.accounting.snapshot().total, 0);
});

test('countries: an org without the picklists answers the standard ISO 3166 list, and says so', async (t) => {
  const s = await startStack(t, { salesforce: { addressPicklists: false } });
  const answer = await s.api<Countries>('/v1/countries');
  assert.equal(answer.status, 200, answer.text);
  const { source, countries } = answer.body.data;
  assert.equal(source, 'iso_default');
  assert.equal(countries.length, 249);
  assert.equal(new Set(countries.map((c) => c.code)).size, 249);
  assert.ok(countries.every((c) => /^[A-Z]{2}$/.test(c.code) && c.active && c.visible));
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  assert.ok(countries.every((c) => c.label === names.of(c.code) && c.label !== c.code));
  const country = (code: string) => countries.find((c) => c.code === code);
  assert.equal(country('US')?.label, 'United States');
  assert.equal(country('DE')?.label, 'Germany');
  assert.equal(country('US')?.states.length, 51);
  assert.equal(country('US')?.states.find((st) => st.code === 'CA')?.label, 'California');
  assert.equal(country('CA')?.states.find((st) => st.code === 'QC')?.label, 'Quebec');
  assert.equal(country('AU')?.states.find((st) => st.code === 'NSW')?.label, 'New South Wales');
  assert.deepEqual(country('FR')?.states, []);
});

test('countries: a HubSpot connection is refused, naming the CRM that offers them', async (t) => {
  const s = await startStack(t);
  const answer = await s.api<ErrorBody>('/v1/countries', { token: s.tokens.hubspot });
  assert.equal(answer.status, 422);
  assert.equal(answer.body.error.code, 'operation_not_available');
  assert.match(answer.body.error.message, /offered for Salesforce connections only/);
  assert.deepEqual(answer.body.error.details[0]?.['offered_by'], ['salesforce']);
  assert.equal(s.hs.accounting.snapshot().total, 0, 'no HubSpot call');
});

test('countries: a request body or another method is a clear client error', async (t) => {
  const s = await startStack(t);
  const body = await s.api<ErrorBody>('/v1/countries', { body: { country: 'US' } });
  assert.equal(body.status, 400);
  assert.equal(body.body.error.code, 'invalid_body');
  assert.match(body.body.error.message, /takes no request body/);
  const get = await s.api<ErrorBody>('/v1/countries', { method: 'GET' });
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
});
