// Paging of aggregate queries, as the SOQL guide's "Considerations When Using GROUP BY" states it: a
// query with GROUP BY (or aggregate functions) cannot use queryMore; its rows come in one batch of
// at most 2,000, and a query with more rows must be narrowed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useSandbox, V } from './rest-helpers.ts';

const { call } = useSandbox();
const q = async (soql: string, headers: Record<string, string> = {}) =>
  call('GET', `${V}/query?q=${encodeURIComponent(soql)}`, undefined, headers);

test('aggregate queries: one batch whatever the batch size, no nextRecordsUrl; over 2,000 rows refused', async () => {
  const small = { 'sforce-query-options': 'batchSize=200' };
  const plain = await q('SELECT Id, LastName FROM Contact', small);
  assert.equal((plain.body as { done: boolean }).done, false, 'a plain query pages at the batch size');

  const grouped = await q('SELECT LastName, Email, COUNT(Id) n FROM Contact GROUP BY LastName, Email', small);
  assert.equal(grouped.status, 200, JSON.stringify(grouped.body));
  const page = grouped.body as {
    totalSize: number;
    done: boolean;
    records: unknown[];
    nextRecordsUrl?: string;
  };
  assert.ok(page.totalSize > 200, `groups: ${page.totalSize}`);
  assert.equal(page.done, true);
  assert.equal(page.records.length, page.totalSize);
  assert.equal('nextRecordsUrl' in page, false);

  // Enough contacts for more than 2,000 groups.
  for (let batch = 0; batch < 10; batch++) {
    const records = Array.from({ length: 200 }, (_v, i) => ({
      attributes: { type: 'Contact' },
      LastName: `Grouped ${batch}-${i}`,
    }));
    const made = await call('POST', `${V}/composite/sobjects`, { records });
    assert.equal(made.status, 200);
  }
  const tooMany = await q('SELECT LastName, COUNT(Id) FROM Contact GROUP BY LastName');
  assert.equal(tooMany.status, 400);
  assert.deepEqual(tooMany.body, [
    {
      message:
        'Aggregate query does not support queryMore(), use LIMIT to restrict the results to a single batch',
      errorCode: 'MALFORMED_QUERY',
    },
  ]);
  const limited = await q('SELECT LastName, COUNT(Id) FROM Contact GROUP BY LastName LIMIT 2000');
  assert.equal(limited.status, 200);
  assert.equal((limited.body as { records: unknown[] }).records.length, 2000);
});
