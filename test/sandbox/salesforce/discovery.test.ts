import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import jsforce from 'jsforce';
import { connectTo } from './jsforce-helpers.ts';
import { useSandbox, V } from './rest-helpers.ts';

// jsforce 3.10.16 (package.json): the general-purpose client these resources are checked with.
const { sf, call, reset } = useSandbox();
beforeEach(reset);

const connect = () => connectTo(sf());

test('the resource list names only what answers, and identity is an absolute URL', async () => {
  const res = await call('GET', V);
  const resources = res.body as Record<string, string>;
  assert.match(resources.identity ?? '', /^http:\/\/127\.0\.0\.1:\d+\/id\/00D\w{15}\/005\w{15}$/);
  assert.equal(resources.sobjects, `${V}/sobjects`);
  assert.equal(resources.analytics, undefined, 'not emulated, so not listed');
  for (const [name, url] of Object.entries(resources)) {
    const path = url.startsWith('http') ? new URL(url).pathname : url;
    const answer = await call('GET', path);
    // query/search without their parameter answer their own 400; nothing is a 404.
    assert.ok([200, 400].includes(answer.status), `${name} answered ${answer.status}`);
  }
  const identity = await connect().identity();
  assert.equal(identity.user_id, (await connect().identity()).user_id);
  assert.ok(identity.id.startsWith(sf().url), 'the identity URL is on the sandbox host');
  assert.equal(typeof identity.organization_id, 'string');
});

test('trailing and doubled slashes are served like the clean path, and still need a session', async () => {
  const clean = await call('GET', `${V}/sobjects/Account/describe`);
  for (const path of [`/${V}/sobjects/Account/describe/`, `${V}//sobjects//Account/describe`]) {
    const res = await call('GET', path);
    assert.equal(res.status, 200, path);
    assert.deepEqual(res.body, clean.body);
  }
  const q = await call('GET', `${V}//query/?q=${encodeURIComponent('SELECT Id FROM Account LIMIT 1')}`);
  assert.equal(q.status, 200);
  const anonymous = await fetch(`${sf().url}//services/data/v62.0//sobjects`);
  assert.equal(anonymous.status, 401);
  // An instance URL with a trailing slash, as some clients keep it.
  const conn = new jsforce.Connection({
    instanceUrl: `${sf().url}/`,
    accessToken: sf().credentials.accessToken,
    version: '62.0',
  });
  assert.equal((await conn.query('SELECT Id FROM Account LIMIT 2')).records.length, 2);
});

test('SOQL is parsed strictly: a missing comma is MALFORMED_QUERY, as Salesforce answers it', async () => {
  const res = await call('GET', `${V}/query?q=${encodeURIComponent('SELECT Id Name FROM Account')}`);
  assert.equal(res.status, 400);
  const [err] = res.body as Array<{ errorCode: string; message: string }>;
  assert.equal(err?.errorCode, 'MALFORMED_QUERY');
  assert.match(err?.message ?? '', /ERROR at Row:1:Column:11\nOnly aggregate expressions use field aliasing/);
  await assert.rejects(
    async () => connect().query('SELECT Id Name FROM Account'),
    (e: Error & { errorCode?: string }) => e.errorCode === 'MALFORMED_QUERY',
  );
  // Aliases on aggregates stay legal; HAVING filters the groups.
  const grouped = await connect().query(
    'SELECT Industry, COUNT(Id) n FROM Account WHERE Industry != null GROUP BY Industry HAVING COUNT(Id) > 5',
  );
  assert.ok(grouped.records.length > 0, 'some industries have more than five accounts');
  for (const r of grouped.records as Array<{ n: number }>) assert.ok(r.n > 5, `group of ${r.n}`);
  const all = await connect().query(
    'SELECT Industry, COUNT(Id) n FROM Account WHERE Industry != null GROUP BY Industry',
  );
  assert.ok(all.records.length > grouped.records.length, 'HAVING dropped the single-record groups');
  const noGroup = await call(
    'GET',
    `${V}/query?q=${encodeURIComponent('SELECT Id FROM Account HAVING COUNT(Id) > 1')}`,
  );
  assert.equal((noGroup.body as Array<{ errorCode: string }>)[0]?.errorCode, 'MALFORMED_QUERY');
});

test('columns=true answers the column metadata of the select list', async () => {
  const soql = 'SELECT Id, Name, Owner.Name, (SELECT LastName FROM Contacts) FROM Account';
  const res = await call('GET', `${V}/query?q=${encodeURIComponent(soql)}&columns=true`);
  assert.equal(res.status, 200);
  const body = res.body as {
    entityName: string;
    idSelected: boolean;
    groupBy: boolean;
    keyPrefix: string;
    columnMetadata: Array<{
      columnName: string;
      apexType: string | null;
      aggregate: boolean;
      joinColumns: Array<{ columnName: string }>;
    }>;
  };
  assert.deepEqual(
    [body.entityName, body.idSelected, body.groupBy, body.keyPrefix],
    ['Account', true, false, '001'],
  );
  assert.deepEqual(
    body.columnMetadata.map((c) => c.columnName),
    ['Id', 'Name', 'Owner', 'Contacts'],
  );
  assert.equal(body.columnMetadata[0]?.apexType, 'Id');
  assert.deepEqual(
    body.columnMetadata[2]?.joinColumns.map((c) => c.columnName),
    ['Name'],
  );
  assert.equal(body.columnMetadata[3]?.aggregate, true);
  assert.deepEqual(
    body.columnMetadata[3]?.joinColumns.map((c) => c.columnName),
    ['LastName'],
  );
});

test('explain: query plans in the real shape, for a query and for a list view', async () => {
  const conn = connect();
  const plan = (await conn.query("SELECT Id FROM Account WHERE Name = 'nobody'").explain()) as {
    plans: Array<{
      leadingOperationType: string;
      sobjectType: string;
      cardinality: number;
      sobjectCardinality: number;
      relativeCost: number;
      fields: string[];
      notes: unknown[];
    }>;
    sourceQuery: string;
  };
  assert.equal(plan.sourceQuery, "SELECT Id FROM Account WHERE Name = 'nobody'");
  assert.deepEqual(
    plan.plans.map((p) => p.leadingOperationType),
    ['Index', 'TableScan'],
  );
  assert.deepEqual(plan.plans[0]?.fields, ['Name']);
  assert.equal(plan.plans[0]?.cardinality, 0);
  assert.ok((plan.plans[0]?.sobjectCardinality ?? 0) > 0, 'the plan counts the table');
  const lists = (await conn.sobject('Account').listviews()) as unknown as {
    listviews: Array<{ id: string; developerName: string }>;
  };
  const all = lists.listviews.find((l) => l.developerName === 'AllAccounts');
  assert.ok(all, 'the All Accounts list view exists');
  const viewPlan = (await conn.sobject('Account').listview(all.id).explain()) as {
    plans: Array<{ leadingOperationType: string }>;
    sourceQuery: string;
  };
  assert.match(viewPlan.sourceQuery, /FROM Account ORDER BY Name ASC NULLS FIRST/);
  assert.equal(viewPlan.plans.at(-1)?.leadingOperationType, 'TableScan');
  const bad = await call('GET', `${V}/query?explain=${encodeURIComponent('SELECT Nope FROM Account')}`);
  assert.equal((bad.body as Array<{ errorCode: string }>)[0]?.errorCode, 'INVALID_FIELD');
});

test('recent: FOR VIEW marks records viewed; global and per-object lists follow', async () => {
  const conn = connect();
  assert.deepEqual(await conn.recent(), []);
  const viewed = await conn.query('SELECT Id, Name FROM Account ORDER BY Name LIMIT 2 FOR VIEW');
  const recent = (await conn.recent(2)) as unknown as Array<{
    Id: string;
    Name: string;
    attributes: { type: string };
  }>;
  assert.deepEqual(
    recent.map((r) => r.Id),
    viewed.records.map((r) => r.Id),
  );
  for (const r of recent) {
    assert.equal(r.attributes.type, 'Account');
    assert.equal(typeof r.Name, 'string');
  }
  const perObject = (await conn.sobject('Account').recent()) as Array<{ Id: string }>;
  assert.deepEqual(
    perObject.map((r) => r.Id),
    recent.map((r) => r.Id),
  );
  assert.deepEqual(await conn.sobject('Contact').recent(), []);
  await conn.sobject('Account').destroy(recent[0]?.Id as string);
  assert.deepEqual(
    ((await conn.recent()) as Array<{ Id: string }>).map((r) => r.Id),
    [recent[1]?.Id],
  );
});

test('updated / deleted: the records changed and deleted in the window, from their real history', async () => {
  const conn = connect();
  const account = conn.sobject('Account');
  const [a, b] = (await account.create([{ Name: 'Repl A' }, { Name: 'Repl B' }])) as Array<{ id: string }>;
  await account.update({ Id: a?.id as string, Phone: '1' });
  await account.destroy(b?.id as string);
  const end = new Date(Date.now() + 3600_000);
  const start = new Date(Date.now() - 24 * 3600_000);
  const updated = await account.updated(start, end);
  assert.ok(updated.ids.includes(a?.id as string), 'the updated account is listed');
  assert.ok(!updated.ids.includes(b?.id as string), 'a deleted record is not listed as updated');
  assert.match(updated.latestDateCovered, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000\+0000$/);
  const deleted = await account.deleted(start.toString(), end.toString());
  assert.deepEqual(
    deleted.deletedRecords.map((d) => d.id),
    [b?.id],
  );
  assert.match(deleted.deletedRecords[0]?.deletedDate ?? '', /\+0000$/);
  assert.equal(typeof deleted.earliestDateAvailable, 'string');
  // Seeded records date from 2024: outside any 30-day window.
  assert.equal(updated.ids.length, 1);

  const reversed = await call(
    'GET',
    `${V}/sobjects/Account/updated?start=${encodeURIComponent(end.toISOString())}&end=${encodeURIComponent(start.toISOString())}`,
  );
  assert.equal(reversed.status, 400);
  assert.equal((reversed.body as Array<{ errorCode: string }>)[0]?.errorCode, 'INVALID_REPLICATION_DATE');
  const old = await call(
    'GET',
    `${V}/sobjects/Account/deleted?start=2020-01-01T00:00:00Z&end=2020-01-02T00:00:00Z`,
  );
  assert.equal((old.body as Array<{ errorCode: string }>)[0]?.errorCode, 'INVALID_REPLICATION_DATE');
  const missing = await call('GET', `${V}/sobjects/Account/updated`);
  assert.equal(missing.status, 400);
});

test('layouts, named layouts, compact and approval layouts in the real shapes', async () => {
  const conn = connect();
  const layouts = (await conn.sobject('Account').layouts()) as unknown as {
    layouts: Array<{
      id: string;
      detailLayoutSections: Array<{
        heading: string;
        layoutRows: Array<{
          layoutItems: Array<{ layoutComponents: Array<{ value: string; type: string }> }>;
        }>;
      }>;
      relatedLists: Array<{ name: string }>;
    }>;
    recordTypeMappings: Array<{ recordTypeId: string; layoutId: string }>;
    recordTypeSelectorRequired: boolean[];
  };
  const [layout] = layouts.layouts;
  assert.ok(layout, 'Account has a layout');
  assert.match(layout.id, /^00h\w{15}$/);
  assert.equal(layouts.recordTypeMappings[0]?.layoutId, layout.id);
  assert.deepEqual(layouts.recordTypeSelectorRequired, [false]);
  const values = layout.detailLayoutSections.flatMap((s) =>
    s.layoutRows.flatMap((r) => r.layoutItems.flatMap((i) => i.layoutComponents.map((c) => c.value))),
  );
  assert.ok(values.includes('Name') && values.includes('Industry'), 'the layout shows Name and Industry');
  assert.ok(
    layout.relatedLists.some((r) => r.name === 'Contacts'),
    'Contacts is a related list',
  );
  const byRecordType = await call('GET', `${V}/sobjects/Account/describe/layouts/012000000000000AAA`);
  assert.equal((byRecordType.body as { id: string }).id, layout.id);

  const described = await conn.sobject('User').describe();
  assert.deepEqual(described.namedLayoutInfos, [{ name: 'UserAlt' }]);
  const named = (await conn.sobject('User').layouts('UserAlt')) as unknown as { layouts: unknown[] };
  assert.equal(named.layouts.length, 1);
  assert.equal((await call('GET', `${V}/sobjects/User/describe/namedLayouts/Nope`)).status, 404);

  const compact = (await conn.sobject('Contact').compactLayouts()) as unknown as {
    compactLayouts: Array<{ name: string; fieldItems: Array<{ label: string }> }>;
    recordTypeCompactLayoutMappings: Array<{ compactLayoutName: string }>;
  };
  assert.equal(compact.compactLayouts[0]?.name, 'SYSTEM');
  assert.ok((compact.compactLayouts[0]?.fieldItems.length ?? 0) >= 1, 'the compact layout has fields');
  assert.equal(compact.recordTypeCompactLayoutMappings[0]?.compactLayoutName, 'SYSTEM');
  assert.deepEqual(await conn.sobject('Account').approvalLayouts(), { approvalLayouts: [] });
});

test('list views: list, describe and results run the view on the org data', async () => {
  const conn = connect();
  const so = conn.sobject('Account');
  const lists = (await so.listviews()) as unknown as {
    listviews: Array<{ id: string; developerName: string; label: string; resultsUrl: string }>;
    size: number;
    sobjectType: string;
  };
  assert.equal(lists.sobjectType, 'Account');
  assert.deepEqual(
    lists.listviews.map((l) => l.developerName),
    ['AllAccounts', 'MyAccounts', 'RecentlyViewedAccounts'],
  );
  const all = lists.listviews[0];
  assert.ok(all, 'the All Accounts list view exists');
  const describe = (await so.listview(all.id).describe()) as {
    query: string;
    columns: Array<{ fieldNameOrPath: string; hidden: boolean }>;
    scope: string;
  };
  assert.equal(describe.scope, 'everything');
  assert.ok(
    describe.columns.some((c) => c.fieldNameOrPath === 'Id' && c.hidden),
    'Id is a hidden column',
  );
  const results = (await so.listview(all.id).results()) as {
    size: number;
    records: Array<{ columns: Array<{ fieldNameOrPath: string; value: string | null }> }>;
    done: boolean;
  };
  const count = await conn.query('SELECT COUNT() FROM Account');
  assert.equal(results.size, count.totalSize);
  assert.equal(results.records.length, Math.min(25, count.totalSize));
  assert.equal(results.records[0]?.columns[0]?.fieldNameOrPath, 'Name');
  const recentView = lists.listviews[2];
  const empty = (await so.listview(recentView?.id as string).results()) as { size: number };
  assert.equal(empty.size, 0);
  assert.equal((await call('GET', `${V}/sobjects/Account/listviews/00B000000000000AAA/results`)).status, 404);
});
