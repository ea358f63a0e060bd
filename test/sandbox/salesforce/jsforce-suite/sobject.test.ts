// Mirrors jsforce's integration file test/sobject.test.ts (27 tests): the SObject query builder
// (find, findOne, count, sort, select, include), layouts with their caches, and list views.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Connection } from 'jsforce';
import { connectTo } from '../jsforce-helpers.ts';
import { useSandbox } from '../rest-helpers.ts';

const { sf } = useSandbox();
let cached: Connection | null = null;
const conn = () => {
  cached ??= connectTo(sf());
  return cached;
};
const Account = () => conn().sobject('Account');
const Opportunity = () => conn().sobject('Opportunity');
type Row = Record<string, unknown> & { Id?: string };
const str = (v: unknown): v is string => typeof v === 'string';
const isObj = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
const nameOf = (r: Row, rel: string) => String((r[rel] as { Name?: string } | null)?.Name ?? '');

let sample: Row = {};
describe('query builder', () => {
  test('find() with no arguments returns records', async () => {
    assert.ok(Array.isArray(await Account().find()));
  });

  test('find({}, { Name: 1 }) returns records with the chosen field', async () => {
    const rows = (await Account().find({}, { Name: 1 })) as Row[];
    assert.ok(rows.length > 0 && str(rows[0]?.Name));
    sample = rows[0] as Row;
  });

  test('find with a $like condition matches at least the sample', async () => {
    const rows = await Account().find({ Name: { $like: `${String(sample.Name)[0]}%` } }, { Name: 1 });
    assert.ok(rows.length > 0);
  });

  test('findOne by Id returns that record', async () => {
    const rec = await Account().findOne({ Id: sample.Id });
    assert.ok(isObj(rec) && str(rec?.Id));
  });

  test('count with a condition returns a positive number', async () => {
    const n = await Account().count({ Name: { $like: `${String(sample.Name)[0]}%` } });
    assert.ok(typeof n === 'number' && n > 0);
  });

  test('sort(field, "desc") orders by close date descending', async () => {
    const rows = (await Opportunity().find({}, { CloseDate: 1 }).sort('CloseDate', 'desc').exec()) as Row[];
    assert.ok(rows.length > 0);
    for (let i = 0; i + 1 < rows.length; i++)
      assert.ok(String(rows[i]?.CloseDate) >= String(rows[i + 1]?.CloseDate));
  });

  test('sort by a parent field then a descending field', async () => {
    const rows = (await Opportunity()
      .find({}, { 'Account.Name': 1, CloseDate: 1 })
      .sort('Account.Name -CloseDate')
      .exec()) as Row[];
    assert.ok(rows.length > 0);
    assertSorted(rows, 'Account');
  });

  test('sort given as an object, with limit(10)', async () => {
    const rows = (await Opportunity()
      .find({}, { 'Owner.Name': 1, CloseDate: 1 })
      .sort({ 'Owner.Name': 1, CloseDate: -1 })
      .limit(10)
      .exec()) as Row[];
    assert.ok(rows.length > 0 && rows.length <= 10);
    assertSorted(rows, 'Owner');
  });

  test('select("Id,Owner.Name,CloseDate") with limit', async () => {
    const rows = (await Opportunity().select('Id,Owner.Name,CloseDate').limit(10).exec()) as Row[];
    assert.ok(rows.length > 0 && rows.length <= 10);
    for (const r of rows) assert.ok(str(r.Id) && str(nameOf(r, 'Owner')) && str(r.CloseDate));
  });

  test("select('*, Account.*, Owner.Name') expands every field", async () => {
    const rows = (await Opportunity().select('*, Account.*, Owner.Name').exec()) as Row[];
    assert.ok(rows.length > 0);
    for (const r of rows) {
      assert.ok(str(r.Id) && str(r.Name) && str(r.CloseDate));
      assert.ok(nameOf(r, 'Account') !== '' && nameOf(r, 'Owner') !== '');
    }
  });

  test('include() child relationships with their own fields and limits', async () => {
    const rows = (await Account()
      .find(null, 'Id')
      .include('Contacts')
      .select('*')
      .limit(2)
      .end()
      .include('Opportunities', null, 'Id, Name', { limit: 2 })
      .end()
      .limit(10)
      .exec()) as Row[];
    assert.ok(rows.length > 0 && rows.length <= 10);
    let seen = 0;
    for (const r of rows) {
      assert.ok(str(r.Id) && r.Name === undefined);
      const contacts = (r.Contacts as { records: Row[] } | null)?.records ?? [];
      assert.ok(contacts.length <= 2);
      for (const c of contacts) assert.ok(str(c.Id) && str(c.LastName) && 'FirstName' in c);
      const opps = (r.Opportunities as { records: Row[] } | null)?.records ?? [];
      assert.ok(opps.length <= 2);
      for (const o of opps) assert.ok(str(o.Id) && str(o.Name) && o.CloseDate === undefined);
      seen += contacts.length + opps.length;
    }
    assert.ok(seen > 0, 'some child rows');
  });
});

/** Sorted by `${rel}.Name` ascending, then CloseDate descending (SOQL sorts text case-insensitively). */
function assertSorted(rows: Row[], rel: string) {
  for (let i = 0; i + 1 < rows.length; i++) {
    const [a, b] = [nameOf(rows[i] as Row, rel).toLowerCase(), nameOf(rows[i + 1] as Row, rel).toLowerCase()];
    assert.ok(a <= b, `${a} before ${b}`);
    if (a === b) assert.ok(String(rows[i]?.CloseDate) >= String(rows[i + 1]?.CloseDate));
  }
}

type Layouts = { layouts: Row[]; recordTypeMappings: unknown; recordTypeSelectorRequired: unknown };
function checkLayouts(res: Layouts) {
  assert.ok(Array.isArray(res.layouts) && res.layouts.length > 0);
  for (const l of res.layouts) {
    assert.ok(l.id === null || str(l.id));
    assert.ok(isObj(l.buttonLayoutSection));
    assert.ok(Array.isArray(l.detailLayoutSections) && Array.isArray(l.editLayoutSections));
    assert.ok(Array.isArray((l.quickActionList as { quickActionListItems: unknown }).quickActionListItems));
    assert.ok(Array.isArray(l.relatedLists));
  }
  assert.ok(Array.isArray(res.recordTypeMappings) && Array.isArray(res.recordTypeSelectorRequired));
}
function checkCompact(res: {
  compactLayouts: Row[];
  defaultCompactLayoutId?: unknown;
  recordTypeCompactLayoutMappings: unknown;
}) {
  assert.ok(Array.isArray(res.compactLayouts) && res.compactLayouts.length > 0);
  for (const l of res.compactLayouts) {
    assert.ok((l.id === null || str(l.id)) && str(l.objectType));
    assert.ok(Array.isArray(l.actions) && Array.isArray(l.fieldItems));
  }
  assert.ok(!res.defaultCompactLayoutId || str(res.defaultCompactLayoutId));
  assert.ok(Array.isArray(res.recordTypeCompactLayoutMappings));
}
function checkApproval(res: { approvalLayouts: Row[] }) {
  assert.ok(Array.isArray(res.approvalLayouts));
  for (const l of res.approvalLayouts) assert.ok(str(l.name) && str(l.label) && Array.isArray(l.layoutItems));
}

describe('layouts, fetched then served from jsforce cache', () => {
  test('layouts()', async () => checkLayouts((await Account().layouts()) as unknown as Layouts));
  test('layouts$()', async () => checkLayouts((await Account().layouts$()) as unknown as Layouts));
  test('layouts$$()', () => checkLayouts(Account().layouts$$() as unknown as Layouts));
  const User = () => conn().sobject('User');
  test("named layout layouts('UserAlt')", async () =>
    checkLayouts((await User().layouts('UserAlt')) as unknown as Layouts));
  test("named layout layouts$('UserAlt')", async () =>
    checkLayouts((await User().layouts$('UserAlt')) as unknown as Layouts));
  test("named layout layouts$$('UserAlt')", () =>
    checkLayouts(User().layouts$$('UserAlt') as unknown as Layouts));
  test('compactLayouts()', async () => checkCompact((await Account().compactLayouts()) as never));
  test('compactLayouts$()', async () => checkCompact((await Account().compactLayouts$()) as never));
  test('compactLayouts$$()', () => checkCompact(Account().compactLayouts$$() as never));
  test('approvalLayouts()', async () => checkApproval((await Account().approvalLayouts()) as never));
  test('approvalLayouts$()', async () => checkApproval((await Account().approvalLayouts$()) as never));
  test('approvalLayouts$$()', () => checkApproval(Account().approvalLayouts$$() as never));
});

function checkColumns(columns: Row[]) {
  assert.ok(Array.isArray(columns) && columns.length > 0);
  for (const c of columns) {
    assert.ok(str(c.label) && str(c.fieldNameOrPath) && str(c.selectListItem));
    assert.ok(typeof c.sortIndex === 'number' || c.sortIndex === null);
    assert.equal(typeof c.sortable, 'boolean');
  }
}

describe('list views', () => {
  let viewId = '';
  test('listviews() lists views with their URLs', async () => {
    const res = (await Account().listviews()) as unknown as { listviews: Row[] };
    assert.ok(res.listviews.length > 0);
    for (const v of res.listviews) {
      assert.ok(str(v.id) && str(v.label) && str(v.describeUrl) && str(v.resultsUrl));
      assert.equal(typeof v.soqlCompatible, 'boolean');
    }
    viewId = String(res.listviews[0]?.id);
  });

  test('listview(id).describe() gives its query, columns and order', async () => {
    const res = (await Account().listview(viewId).describe()) as unknown as Row;
    assert.ok(str(res.id) && str(res.sobjectType) && (str(res.query) || res.query === null));
    assert.ok(Array.isArray(res.orderBy));
    checkColumns(res.columns as Row[]);
  });

  test('listview(id).results() runs the view', async () => {
    const res = (await Account().listview(viewId).results()) as unknown as Row;
    assert.ok(typeof res.done === 'boolean' && typeof res.size === 'number');
    assert.ok(str(res.id) && str(res.label) && Array.isArray(res.records));
    checkColumns(res.columns as Row[]);
  });

  test('listview(id).explain() returns query plans', async () => {
    const res = (await Account().listview(viewId).explain()) as { plans: Row[] };
    assert.ok(res.plans.length > 0);
    for (const p of res.plans) {
      assert.ok(typeof p.cardinality === 'number' && typeof p.relativeCost === 'number');
      assert.ok(typeof p.sobjectCardinality === 'number' && Array.isArray(p.fields));
      assert.ok(str(p.leadingOperationType) && str(p.sobjectType));
    }
  });
});
