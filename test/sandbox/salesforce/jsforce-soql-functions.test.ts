import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { connectTo } from './jsforce-helpers.ts';
import { useSandbox } from './rest-helpers.ts';

/**
 * SOQL functions through jsforce's `query()`, with the answer shapes Salesforce documents:
 * date functions (https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_date_functions.htm),
 * ORDER BY an aggregate, GROUP BY ROLLUP with GROUPING()
 * (https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_groupby_rollup.htm),
 * toLabel() and FORMAT() (…/sforce_api_calls_soql_select_format.htm: `$44,000.00`, `4/10/2025, 3:31 PM`).
 */
const { sf, reset } = useSandbox();
beforeEach(reset);

const connect = () => connectTo(sf());

type Row = Record<string, unknown>;
const rows = async (soql: string) =>
  (await connect().query<Row>(soql)).records.map(({ attributes: _, ...r }) => r);

/** Every opportunity, read plainly, to check the aggregates against. */
const opportunities = async () =>
  rows('SELECT StageName, Amount, CloseDate FROM Opportunity') as Promise<
    Array<{ StageName: string; Amount: number | null; CloseDate: string }>
  >;

test('jsforce: CALENDAR_YEAR() and CALENDAR_MONTH() in SELECT, GROUP BY and ORDER BY answer exprN columns', async () => {
  const all = await opportunities();
  const byYear = new Map<number, number>();
  for (const o of all)
    byYear.set(Number(o.CloseDate.slice(0, 4)), (byYear.get(Number(o.CloseDate.slice(0, 4))) ?? 0) + 1);
  const years = await rows(
    'SELECT CALENDAR_YEAR(CloseDate), COUNT(Id) FROM Opportunity GROUP BY CALENDAR_YEAR(CloseDate) ORDER BY CALENDAR_YEAR(CloseDate) DESC',
  );
  assert.deepEqual(
    years,
    [...byYear.entries()].sort((a, b) => b[0] - a[0]).map(([y, n]) => ({ expr0: y, expr1: n })),
  );
  const months = await rows(
    'SELECT CALENDAR_YEAR(CloseDate) y, CALENDAR_MONTH(CloseDate) m, SUM(Amount) total FROM Opportunity GROUP BY CALENDAR_YEAR(CloseDate), CALENDAR_MONTH(CloseDate)',
  );
  const sum = months.reduce((s, r) => s + Number(r['total'] ?? 0), 0);
  assert.equal(
    sum,
    all.reduce((s, o) => s + (o.Amount ?? 0), 0),
  );
  assert.ok(months.every((r) => Number(r['m']) >= 1 && Number(r['m']) <= 12));
  await assert.rejects(
    async () => connect().query('SELECT CALENDAR_YEAR(CloseDate) FROM Opportunity'),
    (e: Error & { errorCode?: string }) =>
      e.errorCode === 'MALFORMED_QUERY' && /Field must be grouped or aggregated/.test(e.message),
  );
  await assert.rejects(
    async () =>
      connect().query('SELECT CALENDAR_YEAR(Name), COUNT(Id) FROM Opportunity GROUP BY CALENDAR_YEAR(Name)'),
    (e: Error & { errorCode?: string }) => e.errorCode === 'INVALID_FIELD',
  );
});

test('jsforce: ORDER BY an aggregate, selected or not', async () => {
  const all = await opportunities();
  const counts = new Map<string, number>();
  for (const o of all) counts.set(o.StageName, (counts.get(o.StageName) ?? 0) + 1);
  const expected = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const byCount = await rows(
    'SELECT StageName, COUNT(Id) c FROM Opportunity GROUP BY StageName ORDER BY COUNT(Id) DESC, StageName',
  );
  assert.deepEqual(
    byCount,
    expected.map(([StageName, c]) => ({ StageName, c })),
  );
  const bySum = await rows(
    'SELECT StageName FROM Opportunity GROUP BY StageName ORDER BY SUM(Amount) DESC NULLS LAST LIMIT 1',
  );
  const sums = new Map<string, number>();
  for (const o of all) sums.set(o.StageName, (sums.get(o.StageName) ?? 0) + (o.Amount ?? 0));
  const top = [...sums.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  // The hidden sort column is not in the row.
  assert.deepEqual(bySum, [{ StageName: top }]);
});

test('jsforce: GROUP BY ROLLUP adds subtotal rows marked by GROUPING()', async () => {
  const all = await opportunities();
  const rolled = await rows(
    'SELECT StageName, COUNT(Id) cnt, GROUPING(StageName) g FROM Opportunity GROUP BY ROLLUP(StageName)',
  );
  const total = rolled.at(-1);
  assert.deepEqual(total, { StageName: null, cnt: all.length, g: 1 });
  assert.equal(rolled.length, new Set(all.map((o) => o.StageName)).size + 1);
  assert.ok(rolled.slice(0, -1).every((r) => r['g'] === 0 && typeof r['StageName'] === 'string'));
});

test("jsforce: toLabel() answers picklist labels, FORMAT() the user's locale", async () => {
  const conn = connect();
  const account = await conn
    .sobject('Account')
    .create({ Name: 'Labelled', CleanStatus: 'Matched', AnnualRevenue: 44000 });
  const id = (account as { id: string }).id;
  const [row] = await rows(
    `SELECT toLabel(CleanStatus), FORMAT(AnnualRevenue) revenue FROM Account WHERE Id = '${id}'`,
  );
  // AnnualRevenue is currency(18, 0): no decimals, as the UI shows it.
  assert.deepEqual(row, { CleanStatus: 'In Sync', revenue: '$44,000' });
  const [when] = await rows(`SELECT FORMAT(CreatedDate) created FROM Account WHERE Id = '${id}'`);
  assert.match(String(when?.['created']), /^\d{1,2}\/\d{1,2}\/\d{4}, \d{1,2}:\d{2} (AM|PM)$/);
  const [min] = await rows('SELECT FORMAT(MIN(Amount)) low FROM Opportunity');
  assert.match(String(min?.['low']), /^\$[\d,]+\.\d{2}$/);
  await assert.rejects(
    async () => conn.query('SELECT toLabel(AnnualRevenue) FROM Account'),
    (e: Error & { errorCode?: string }) => e.errorCode === 'INVALID_FIELD',
  );
});
