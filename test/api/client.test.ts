// The typed client (packages/client) against the service and both sandbox CRMs: every /v1 route is
// called through it at least once, so the client cannot drift from the API it is generated from.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CrmProxyClient, CrmProxyError, createCrmProxyClient } from '../../packages/client/src/index.ts';
import { type Stack, startStack } from '../helpers/stack.ts';

/** `METHOD /path` of every request the clients of this file sent (query strings left off). */
const sent = new Set<string>();

const clientFor = (s: Stack, crm: 'salesforce' | 'hubspot'): CrmProxyClient =>
  createCrmProxyClient({
    baseUrl: s.baseUrl,
    token: s.tokens[crm],
    fetch: (input, init) => {
      const request = input instanceof Request ? input : new Request(input, init);
      sent.add(`${request.method} ${new URL(request.url).pathname}`);
      return fetch(input, init);
    },
  });

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

function ids(answer: Awaited<ReturnType<CrmProxyClient['insert']>>): string[] {
  assert.equal(answer.accepted, false);
  if (answer.accepted) return [];
  assert.ok(
    answer.results.every((r) => r.success),
    JSON.stringify(answer.results),
  );
  return answer.results.map((r) => r.id as string);
}

test('client: records on Salesforce: insert, get, update, upsert, delete, SOQL pages, describe, custom field', async (t) => {
  const s = await startStack(t);
  const crm = clientFor(s, 'salesforce');

  const [acme, globex] = ids(await crm.insert('Account', [{ Name: 'Acme' }, { Name: 'Globex' }]));
  assert.ok(acme && globex);
  const read = await crm.get('Account', [acme, globex, '001000000000000ZZZ'], { fields: ['Name'] });
  assert.deepEqual(
    read.map((r) => r?.['Name'] ?? null),
    ['Acme', 'Globex', null],
  );

  ids(await crm.update('Account', [{ id: acme, Name: 'Acme Corporation' }]));
  assert.equal((await crm.get('Account', [acme]))[0]?.['Name'], 'Acme Corporation');

  const upserted = await crm.upsert('Account', { Name: 'Initech', Industry: 'Software' }, 'Name');
  assert.equal(upserted[0]?.success, true);
  const initech = upserted[0]?.id as string;

  // The SOQL cursor as an async iterator: more records than one page (10 000) holds.
  s.sf.org.insert(
    'Account',
    Array.from({ length: 10_050 }, (_, i) => ({ Name: `Q ${String(i).padStart(5, '0')}` })),
  );
  const first = await crm.soqlPage({ soql: "SELECT Id FROM Account WHERE Name LIKE 'Q %'" });
  assert.equal(first.records.length, 10_000);
  assert.ok(first.next_cursor);
  const names = (
    await collect(crm.soql("SELECT Id, Name FROM Account WHERE Name LIKE 'Q %' ORDER BY Name"))
  ).map((r) => r['Name']);
  assert.equal(names.length, 10_050);
  assert.equal(names.at(-1), 'Q 10049');

  const objects = await crm.describe();
  assert.ok(JSON.stringify(objects).includes('"Account"'));
  const account = await crm.describeObject('Account');
  assert.equal(account['name'], 'Account');

  const field = await crm.addCustomField('Account', {
    name: 'Tier',
    label: 'Tier',
    type: 'Text',
    length: 40,
  });
  assert.equal((field.data as { success?: boolean }).success, true);
  ids(await crm.insert('Account', [{ Name: 'Tiered', Tier__c: 'Gold' }]));

  // Delete with and without the object in the path.
  const byId = await crm.delete(undefined, [acme]);
  assert.ok(!byId.accepted && byId.results[0]?.success);
  const byObject = await crm.delete('Account', [globex, initech]);
  assert.ok(!byObject.accepted && byObject.results.every((r) => r.success));
  assert.deepEqual(await crm.get('Account', [acme, globex]), [null, null]);
});

test('client: jobs and idempotency keys: async insert, wait, results, list, cancel, replay', async (t) => {
  const s = await startStack(t);
  const crm = clientFor(s, 'salesforce');

  const accepted = await crm.insert('Contact', [{ LastName: 'Lovelace' }, { LastName: 'Hopper' }], {
    respondAsync: true,
  });
  assert.equal(accepted.accepted, true);
  if (!accepted.accepted) return;
  assert.match(accepted.job.id, /./);
  const done = await crm.jobs.wait(accepted.job.id, { intervalMs: 50, timeoutMs: 60_000 });
  assert.equal(done.state, 'completed');
  assert.deepEqual(done.counts, { total: 2, processed: 2, succeeded: 2, failed: 0 });
  const results = await collect(crm.jobs.allResults(done.id, 1));
  assert.equal(results.length, 2);
  assert.ok(results.every((r) => r.success && typeof r.id === 'string'));
  assert.deepEqual((await crm.jobs.results(done.id)).data, results);

  // A keyed write runs as a job too; the retry with the same key is answered from the store.
  const key = 'client-test-0001';
  const firstTry = await crm.insert('Contact', [{ LastName: 'Idempotent Turing' }], { idempotencyKey: key });
  const retry = await crm.insert('Contact', [{ LastName: 'Idempotent Turing' }], { idempotencyKey: key });
  assert.ok(!firstTry.accepted && !retry.accepted);
  if (firstTry.accepted || retry.accepted) return;
  assert.equal(firstTry.replayed, false);
  assert.equal(retry.replayed, true);
  assert.ok(firstTry.jobId);
  assert.deepEqual(retry.results, firstTry.results);
  assert.equal(s.sf.org.query("SELECT Id FROM Contact WHERE LastName = 'Idempotent Turing'").totalSize, 1);
  const reused = await crm
    .insert('Contact', [{ LastName: 'Someone else' }], { idempotencyKey: key })
    .catch((e: unknown) => e);
  assert.ok(reused instanceof CrmProxyError);
  assert.equal(reused.code, 'idempotency_key_reused');
  assert.equal(reused.status, 422);

  const listed = await collect(crm.jobs.all(1));
  assert.deepEqual(listed.map((j) => j.id).sort(), [done.id, firstTry.jobId].sort());
  assert.equal((await crm.jobs.list({ limit: 1 })).data.length, 1);
  assert.equal((await crm.jobs.get(done.id)).state, 'completed');

  // Cancelling a finished job changes nothing and answers it.
  const cancelled = await crm.jobs.cancel(done.id);
  assert.equal(cancelled.state, 'completed');

  const missing = await crm.jobs.get('job_does_not_exist').catch((e: unknown) => e);
  assert.ok(missing instanceof CrmProxyError);
  assert.deepEqual([missing.status, missing.code], [404, 'job_not_found']);
});

test('client: HubSpot search pages, associations, associate and dissociate, audit logs', async (t) => {
  const s = await startStack(t);
  const crm = clientFor(s, 'hubspot');
  const contacts = ids(
    await crm.insert(
      'contacts',
      Array.from({ length: 5 }, (_, i) => ({ email: `client${i}@example.com`, firstname: `C${i}` })),
    ),
  );
  const filter = {
    filterGroups: [
      { filters: [{ propertyName: 'email', operator: 'CONTAINS_TOKEN' as const, value: 'client*' }] },
    ],
    sorts: [{ propertyName: 'email', direction: 'ASCENDING' as const }],
    properties: ['email'],
    limit: 2,
  };
  const page = await crm.searchPage('contacts', { search: filter });
  assert.equal(page.records.length, 2);
  assert.ok(page.next_cursor);
  const found = await collect(crm.search('contacts', filter));
  assert.deepEqual(
    found.map((r) => (r['properties'] as Record<string, string>)['email']),
    contacts.map((_, i) => `client${i}@example.com`),
  );

  const [company] = ids(await crm.insert('companies', [{ name: 'Acme' }]));
  const contact = contacts[0] as string;
  assert.ok(company);
  const linked = await crm.associate('contacts', [{ id: contact, to: 'companies', to_id: company }]);
  assert.equal(linked[0]?.success, true, JSON.stringify(linked));
  const read = await crm.associations('contacts', [contact], 'companies');
  assert.deepEqual(
    read[0]?.to.map((x) => x.id),
    [company],
  );
  const unlinked = await crm.dissociate('contacts', [{ id: contact, to: 'companies', to_id: company }]);
  assert.equal(unlinked[0]?.success, true, JSON.stringify(unlinked));
  assert.deepEqual((await crm.associations('contacts', [contact], 'companies'))[0]?.to ?? [], []);

  // The account's audit log, a page and then every entry through the cursor.
  const firstEntries = await crm.auditLogsPage({ filter: { order: 'newest_first', limit: 2 } });
  assert.equal(firstEntries.records.length, 2);
  assert.ok(firstEntries.next_cursor);
  const entries = await collect(crm.auditLogs({ limit: 3 }));
  assert.ok(entries.some((e) => e.category === 'CRM_OBJECT' && e.targetObjectId === contact));

  // An operation the CRM does not offer is a typed error, with the request id of the answer.
  const soql = await crm.soqlPage({ soql: 'SELECT Id FROM Contact' }).catch((e: unknown) => e);
  assert.ok(soql instanceof CrmProxyError);
  assert.deepEqual([soql.status, soql.code], [422, 'operation_not_available']);
  assert.match(soql.requestId, /^req_/);
});

test('client: errors are CrmProxyError with code, message, details and request id; pass-through answers as the CRM does', async (t) => {
  const s = await startStack(t);
  const crm = clientFor(s, 'salesforce');
  const [id] = ids(await crm.insert('Account', [{ Name: 'Proxy target' }]));

  const unknown = await crm.get('Account', [id as string], { fields: ['Nmae'] }).catch((e: unknown) => e);
  assert.ok(unknown instanceof CrmProxyError);
  assert.equal(unknown.status, 400);
  assert.equal(unknown.code, 'unknown_field');
  assert.match(unknown.message, /Name/);
  assert.ok(unknown.details.length > 0);
  assert.match(unknown.requestId, /^req_/);

  const badToken = createCrmProxyClient({ baseUrl: s.baseUrl, token: 'crmp_eu_nope' });
  const refused = await badToken.describe().catch((e: unknown) => e);
  assert.ok(refused instanceof CrmProxyError);
  assert.equal(refused.status, 401);

  // Pass-through, every method: the CRM's own answers.
  const got = await crm.proxy('GET', `/services/data/v62.0/sobjects/Account/${id}`);
  assert.equal(got.status, 200);
  assert.equal(((await got.json()) as { Name: string }).Name, 'Proxy target');
  const posted = await crm.proxy('POST', 'services/data/v62.0/sobjects/Account', {
    body: { Name: 'Posted' },
  });
  assert.equal(posted.status, 201);
  const created = ((await posted.json()) as { id: string }).id;
  const patched = await crm.proxy('PATCH', `services/data/v62.0/sobjects/Account/${created}`, {
    body: { Name: 'Patched' },
  });
  assert.equal(patched.status, 204);
  assert.equal((await crm.get('Account', [created]))[0]?.['Name'], 'Patched');
  const put = await crm.proxy('PUT', `services/data/v62.0/sobjects/Account/${created}`, {
    body: { Name: 'Put' },
  });
  assert.ok(put.status < 500, `PUT answered ${put.status}`);
  const deleted = await crm.proxy('DELETE', `services/data/v62.0/sobjects/Account/${created}`);
  assert.equal(deleted.status, 204);
  const gone = await crm.proxy('GET', `services/data/v62.0/sobjects/Account/${created}`);
  assert.equal(gone.status, 404, 'the CRM’s 404 is passed on, not thrown');
  const outside = await crm.proxy('GET', 'https://example.com/elsewhere').catch((e: unknown) => e);
  assert.ok(outside instanceof CrmProxyError);
  assert.equal(outside.code, 'target_not_allowed');
});

test('client: the admin API through `raw` with an operator key, typed by the generated schema', async (t) => {
  const s = await startStack(t);
  const operator = await s.ctx.operators.create('ops@example.com', 'correct horse battery staple');
  const { key } = await s.ctx.operators.createKey(operator, 'client tests');
  const admin = createCrmProxyClient({ baseUrl: s.baseUrl, token: key });
  const listed = await admin.raw.GET('/v1/admin/connections');
  assert.equal(listed.response.status, 200);
  assert.deepEqual(listed.data?.data.map((c) => c.id).sort(), Object.values(s.connectionIds).sort());
  const created = await admin.raw.POST('/v1/admin/connections/{id}/tokens', {
    params: { path: { id: s.connectionIds.salesforce } },
    body: { name: 'made by the client' },
  });
  assert.equal(created.response.status, 201);
  const token = created.data?.token;
  assert.ok(token);
  // The new token works for the connection's API at once.
  const crm = createCrmProxyClient({ baseUrl: s.baseUrl, token });
  assert.ok(JSON.stringify(await crm.describe()).includes('"Account"'));
});

test('client: the address countries of Salesforce; HubSpot refuses them with a typed error', async (t) => {
  const s = await startStack(t);
  const list = await clientFor(s, 'salesforce').countries();
  assert.equal(list.source, 'org_picklists');
  const us = list.countries.find((c) => c.code === 'US');
  assert.equal(us?.label, 'United States');
  assert.equal(us?.states.find((st) => st.code === 'NY')?.label, 'New York');

  const refused = await clientFor(s, 'hubspot')
    .countries()
    .catch((e: unknown) => e);
  assert.ok(refused instanceof CrmProxyError);
  assert.equal(refused.status, 422);
  assert.equal(refused.code, 'operation_not_available');
});

test('client: the tests above called every /v1 route of the API document through the client', async (t) => {
  const s = await startStack(t);
  const doc = await s.api<{ paths: Record<string, Record<string, unknown>> }>('/openapi.json', {
    method: 'GET',
    token: null,
  });
  const uncalled: string[] = [];
  for (const [path, item] of Object.entries(doc.body.paths)) {
    if (!path.startsWith('/v1/') || path.startsWith('/v1/admin/')) continue;
    const pattern = new RegExp(`^${path.replace('{target_url}', '.+').replace(/\{[a-z_]+\}/g, '[^/]+')}$`);
    for (const method of Object.keys(item)) {
      const m = method.toUpperCase();
      if (![...sent].some((call) => call.startsWith(`${m} `) && pattern.test(call.slice(m.length + 1)))) {
        uncalled.push(`${m} ${path}`);
      }
    }
  }
  assert.deepEqual(uncalled, []);
});
