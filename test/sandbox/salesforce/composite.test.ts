import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import jsforce from 'jsforce';
import { useSandbox, V } from './rest-helpers.ts';

// jsforce 3.10.16 has no composite methods: composite is driven over plain HTTP, search through jsforce.
const { sf, call, reset } = useSandbox();
beforeEach(reset);

type Sub = {
  body: unknown;
  httpStatusCode: number;
  referenceId: string;
  httpHeaders: Record<string, string>;
};

const count = async (soql: string) =>
  ((await call('GET', `${V}/query?q=${encodeURIComponent(soql)}`)).body as { totalSize: number }).totalSize;

test('composite: references between subrequests, one API call for the daily allowance', async () => {
  const before = await call('GET', `${V}/limits`);
  const used = (before.body as { DailyApiRequests: { Remaining: number } }).DailyApiRequests.Remaining;
  const res = await call('POST', `${V}/composite`, {
    compositeRequest: [
      { method: 'POST', url: `${V}/sobjects/Account`, referenceId: 'acct', body: { Name: 'Composite Co' } },
      {
        method: 'POST',
        url: `${V}/sobjects/Contact`,
        referenceId: 'ct',
        body: { LastName: 'Ng', AccountId: '@{acct.id}' },
      },
      {
        method: 'GET',
        url: `${V}/query?q=SELECT+Id,AccountId+FROM+Contact+WHERE+AccountId='@{acct.id}'`,
        referenceId: 'check',
      },
      {
        method: 'GET',
        url: `${V}/sobjects/Contact/@{check.records[0].Id}?fields=LastName`,
        referenceId: 'got',
      },
    ],
  });
  assert.equal(res.status, 200);
  const subs = (res.body as { compositeResponse: Sub[] }).compositeResponse;
  assert.deepEqual(
    subs.map((s) => [s.referenceId, s.httpStatusCode]),
    [
      ['acct', 201],
      ['ct', 201],
      ['check', 200],
      ['got', 200],
    ],
  );
  const acctId = (subs[0]?.body as { id: string } | undefined)?.id;
  assert.equal(subs[0]?.httpHeaders.Location, `${V}/sobjects/Account/${acctId}`);
  assert.equal(
    (subs[2]?.body as { records: Array<{ AccountId: string }> } | undefined)?.records[0]?.AccountId,
    acctId,
  );
  assert.equal((subs[3]?.body as { LastName: string } | undefined)?.LastName, 'Ng');
  const after = await call('GET', `${V}/limits`);
  // The composite and the /limits call itself: two calls, not six.
  assert.equal(
    (after.body as { DailyApiRequests: { Remaining: number } }).DailyApiRequests.Remaining,
    used - 2,
  );
});

test('composite allOrNone: a failure rolls back the others and halts the rest', async () => {
  const before = await count("SELECT COUNT() FROM Account WHERE Name LIKE 'AON%'");
  const res = await call('POST', `${V}/composite`, {
    allOrNone: true,
    compositeRequest: [
      { method: 'POST', url: `${V}/sobjects/Account`, referenceId: 'a1', body: { Name: 'AON 1' } },
      {
        method: 'POST',
        url: `${V}/sobjects/Account`,
        referenceId: 'bad',
        body: { Name: 'AON 2', Nope__c: 1 },
      },
      { method: 'POST', url: `${V}/sobjects/Account`, referenceId: 'a3', body: { Name: 'AON 3' } },
    ],
  });
  const subs = (res.body as { compositeResponse: Sub[] }).compositeResponse;
  assert.deepEqual(
    subs.map((s) => s.httpStatusCode),
    [400, 400, 400],
  );
  assert.equal(
    (subs[0]?.body as Array<{ errorCode: string }> | undefined)?.[0]?.errorCode,
    'PROCESSING_HALTED',
  );
  assert.equal((subs[1]?.body as Array<{ errorCode: string }> | undefined)?.[0]?.errorCode, 'INVALID_FIELD');
  assert.equal(
    (subs[2]?.body as Array<{ errorCode: string }> | undefined)?.[0]?.errorCode,
    'PROCESSING_HALTED',
  );
  assert.equal(await count("SELECT COUNT() FROM Account WHERE Name LIKE 'AON%'"), before);

  // Without allOrNone, only the subrequests that depend on the failure fail.
  const partial = await call('POST', `${V}/composite`, {
    compositeRequest: [
      { method: 'POST', url: `${V}/sobjects/Account`, referenceId: 'bad', body: { Nope__c: 1 } },
      {
        method: 'POST',
        url: `${V}/sobjects/Contact`,
        referenceId: 'dep',
        body: { LastName: 'X', AccountId: '@{bad.id}' },
      },
      { method: 'POST', url: `${V}/sobjects/Account`, referenceId: 'ok', body: { Name: 'AON ok' } },
    ],
  });
  const p = (partial.body as { compositeResponse: Sub[] }).compositeResponse;
  assert.deepEqual(
    p.map((s) => s.httpStatusCode),
    [400, 400, 201],
  );
  assert.match(
    (p[1]?.body as Array<{ message: string }> | undefined)?.[0]?.message ?? '',
    /No value for bad\.id/,
  );
  assert.equal(await count("SELECT COUNT() FROM Account WHERE Name LIKE 'AON%'"), before + 1);
});

test('composite limits and error shapes', async () => {
  const many = Array.from({ length: 26 }, (_, i) => ({
    method: 'GET',
    url: `${V}/limits`,
    referenceId: `r${i}`,
  }));
  const tooMany = await call('POST', `${V}/composite`, { compositeRequest: many });
  assert.equal(tooMany.status, 400);
  assert.match((tooMany.body as Array<{ message: string }>)[0]?.message ?? '', /at most 25 subrequests/);
  const queries = Array.from({ length: 6 }, (_, i) => ({
    method: 'GET',
    url: `${V}/query?q=SELECT+Id+FROM+Account`,
    referenceId: `q${i}`,
  }));
  assert.equal((await call('POST', `${V}/composite`, { compositeRequest: queries })).status, 400);
  const dup = await call('POST', `${V}/composite`, {
    compositeRequest: [
      { method: 'GET', url: `${V}/limits`, referenceId: 'x' },
      { method: 'GET', url: `${V}/limits`, referenceId: 'x' },
    ],
  });
  assert.match((dup.body as Array<{ message: string }>)[0]?.message ?? '', /Duplicate referenceId/);
  const lower = await call('POST', `${V}/composite`, {
    compositeRequest: [{ method: 'get', url: `${V}/limits`, referenceId: 'x' }],
  });
  assert.match((lower.body as Array<{ message: string }>)[0]?.message ?? '', /method must be one of/);
  assert.equal((await call('POST', `${V}/composite`, { nope: [] })).status, 400);
});

test('composite/batch: independent subrequests, haltOnError', async () => {
  const accountId = (
    (await call('GET', `${V}/query?q=SELECT+Id+FROM+Account+LIMIT+1`)).body as {
      records: Array<{ Id: string }>;
    }
  ).records[0]?.Id;
  const res = await call('POST', `${V}/composite/batch`, {
    batchRequests: [
      { method: 'PATCH', url: `v62.0/sobjects/Account/${accountId}`, richInput: { Phone: '555' } },
      { method: 'GET', url: `v62.0/sobjects/Account/${accountId}?fields=Phone` },
      { method: 'GET', url: 'v62.0/sobjects/Account/001000000000000AAA' },
    ],
  });
  const body = res.body as { hasErrors: boolean; results: Array<{ statusCode: number; result: unknown }> };
  assert.equal(body.hasErrors, true);
  assert.deepEqual(
    body.results.map((r) => r.statusCode),
    [204, 200, 404],
  );
  assert.equal((body.results[1]?.result as { Phone: string } | undefined)?.Phone, '555');
  const halted = await call('POST', `${V}/composite/batch`, {
    haltOnError: true,
    batchRequests: [
      { method: 'GET', url: 'v62.0/sobjects/Nope/describe' },
      { method: 'GET', url: 'v62.0/limits' },
    ],
  });
  const h = halted.body as { results: Array<{ statusCode: number; result: Array<{ errorCode: string }> }> };
  assert.deepEqual(
    h.results.map((r) => r.statusCode),
    [404, 412],
  );
  assert.equal(h.results[1]?.result[0]?.errorCode, 'BATCH_PROCESSING_HALTED');
});

test('composite/tree: nested records saved in one transaction, or none', async () => {
  const res = await call('POST', `${V}/composite/tree/Account`, {
    records: [
      {
        attributes: { type: 'Account', referenceId: 'ref1' },
        name: 'Tree Co',
        Contacts: { records: [{ attributes: { type: 'Contact', referenceId: 'ref2' }, LastName: 'Leaf' }] },
      },
      { attributes: { type: 'Account', referenceId: 'ref3' }, Name: 'Tree Two' },
    ],
  });
  assert.equal(res.status, 201);
  const body = res.body as { hasErrors: boolean; results: Array<{ referenceId: string; id: string }> };
  assert.equal(body.hasErrors, false);
  assert.deepEqual(
    body.results.map((r) => r.referenceId),
    ['ref1', 'ref2', 'ref3'],
  );
  const contact = await call('GET', `${V}/sobjects/Contact/${body.results[1]?.id}?fields=AccountId`);
  assert.equal((contact.body as { AccountId: string }).AccountId, body.results[0]?.id);

  const before = await count('SELECT COUNT() FROM Account');
  const bad = await call('POST', `${V}/composite/tree/Account`, {
    records: [
      { attributes: { type: 'Account', referenceId: 'ok' }, Name: 'Fine' },
      { attributes: { type: 'Account', referenceId: 'broken' }, Name: null },
    ],
  });
  assert.equal(bad.status, 400);
  const b = bad.body as {
    hasErrors: boolean;
    results: Array<{ referenceId: string; errors: Array<{ statusCode: string }> }>;
  };
  assert.equal(b.hasErrors, true);
  assert.deepEqual(
    b.results.map((r) => [r.referenceId, r.errors[0]?.statusCode]),
    [['broken', 'REQUIRED_FIELD_MISSING']],
  );
  assert.equal(await count('SELECT COUNT() FROM Account'), before);
  const big = Array.from({ length: 201 }, (_, i) => ({
    attributes: { type: 'Account', referenceId: `r${i}` },
    Name: `N${i}`,
  }));
  assert.equal((await call('POST', `${V}/composite/tree/Account`, { records: big })).status, 400);
});

test('composite/graph: each graph all-or-none on its own', async () => {
  const res = await call('POST', `${V}/composite/graph`, {
    graphs: [
      {
        graphId: 'g1',
        compositeRequest: [
          { method: 'POST', url: `${V}/sobjects/Account`, referenceId: 'a', body: { Name: 'Graph A' } },
          {
            method: 'POST',
            url: `${V}/sobjects/Contact`,
            referenceId: 'c',
            body: { LastName: 'G', AccountId: '@{a.id}' },
          },
        ],
      },
      {
        graphId: 'g2',
        compositeRequest: [
          { method: 'POST', url: `${V}/sobjects/Account`, referenceId: 'a', body: { Name: 'Graph B' } },
          { method: 'POST', url: `${V}/sobjects/Contact`, referenceId: 'c', body: { AccountId: '@{a.id}' } },
        ],
      },
    ],
  });
  const graphs = (
    res.body as {
      graphs: Array<{ graphId: string; isSuccessful: boolean; graphResponse: { compositeResponse: Sub[] } }>;
    }
  ).graphs;
  assert.deepEqual(
    graphs.map((g) => [g.graphId, g.isSuccessful]),
    [
      ['g1', true],
      ['g2', false],
    ],
  );
  assert.equal(await count("SELECT COUNT() FROM Account WHERE Name = 'Graph A'"), 1);
  assert.equal(await count("SELECT COUNT() FROM Account WHERE Name = 'Graph B'"), 0);
});

test('SOSL search and parameterizedSearch over the text fields', async () => {
  const conn = new jsforce.Connection({
    instanceUrl: sf().url,
    accessToken: sf().credentials.accessToken,
    version: '62.0',
  });
  await conn.sobject('Contact').create({ LastName: 'Zyxwv', Email: 'zyxwv@example.org' });
  await conn.sobject('Lead').create({ LastName: 'Zyxwv', Company: 'Zyxwv Labs' });
  const found = await conn.search(
    'FIND {zyxwv} IN ALL FIELDS RETURNING Contact(Id, LastName, Email), Lead(Company)',
  );
  assert.deepEqual(
    found.searchRecords.map((r) => r.attributes?.type),
    ['Contact', 'Lead'],
  );
  assert.equal((found.searchRecords[0] as { Email?: string }).Email, 'zyxwv@example.org');
  assert.deepEqual(Object.keys(found.searchRecords[1] ?? {}).sort(), ['Company', 'attributes']);
  const email = await conn.search('FIND {zyxwv@example.org} IN EMAIL FIELDS RETURNING Contact, Lead');
  assert.deepEqual(
    email.searchRecords.map((r) => r.attributes?.type),
    ['Contact'],
  );
  const wild = await conn.search("FIND {zyx*} RETURNING Lead(Id WHERE Company = 'Zyxwv Labs' LIMIT 1)");
  assert.equal(wild.searchRecords.length, 1);
  const none = await conn.search('FIND {zyxwv AND nothere} RETURNING Contact');
  assert.deepEqual(none.searchRecords, []);
  await assert.rejects(
    async () => conn.search('FIND zyxwv'),
    (e: Error & { errorCode?: string }) => e.errorCode === 'MALFORMED_SEARCH',
  );
  await assert.rejects(
    async () => conn.search('FIND {z}'),
    (e: Error & { errorCode?: string }) => e.errorCode === 'INVALID_SEARCH',
  );

  const get = await call(
    'GET',
    `${V}/parameterizedSearch?q=zyxwv&sobject=Contact&Contact.fields=Id,LastName`,
  );
  assert.deepEqual(
    (get.body as { searchRecords: Array<{ LastName: string }> }).searchRecords.map((r) => r.LastName),
    ['Zyxwv'],
  );
  const post = await call('POST', `${V}/parameterizedSearch`, {
    q: 'Zyxwv',
    fields: ['Id'],
    sobjects: [{ name: 'Lead' }, { name: 'Contact', limit: 1 }],
    in: 'ALL',
  });
  assert.deepEqual(
    (post.body as { searchRecords: Array<{ attributes: { type: string } }> }).searchRecords.map(
      (r) => r.attributes.type,
    ),
    ['Lead', 'Contact'],
  );
  assert.equal((await call('GET', `${V}/parameterizedSearch`)).status, 400);
});
