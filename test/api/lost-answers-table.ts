// Records answered written, not written and unknown when answers are lost, per CRM and operation:
// 1 000 records per write through the service's HTTP API, with `drop_answer` on several calls.
// Run: node test/api/lost-answers-table.ts
import { type Stack, startStack } from '../helpers/stack.ts';

interface Answer {
  data: Array<{ success: boolean; errors: Array<{ statusCode: string }> }>;
}

async function faults(url: string, list: unknown[]) {
  await fetch(`${url}/__sandbox/faults`, { method: 'DELETE' });
  const r = await fetch(`${url}/__sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ faults: list }),
  });
  if (!r.ok) throw new Error(await r.text());
}

const tally = (a: Answer) => {
  const t = { written: 0, notWritten: 0, unknown: 0, other: 0 };
  for (const r of a.data) {
    const code = r.errors[0]?.statusCode;
    if (r.success) t.written++;
    else if (code === 'CRM_PROXY_NOT_WRITTEN') t.notWritten++;
    else if (code === 'CRM_PROXY_OUTCOME_UNKNOWN') t.unknown++;
    else t.other++;
  }
  return t;
};

const rows: string[] = [];
const t = { after: () => undefined } as unknown as Parameters<typeof startStack>[0];
const s: Stack = await startStack(t);
const N = 1000;
const run = async (
  crm: string,
  op: string,
  url: string,
  faultList: unknown[],
  path: string,
  data: unknown[],
  token: string,
  held: () => number,
  via?: string,
) => {
  await faults(url, faultList);
  const answer = await s.clock.fastForward(
    s.api<Answer>(path, {
      token,
      body: { data },
      ...(via ? { headers: { 'x-crm-proxy-interface': via } } : {}),
    }),
  );
  const c = tally(answer.body);
  rows.push(
    `| ${crm} | ${op} | ${N} | ${c.written} | ${c.notWritten} | ${c.unknown} | ${c.other} | ${held()} |`,
  );
};
const hsDrops = (match: string) => [0, 2, 2].map((skip) => ({ kind: 'drop_answer', match, skip }));
const sfDrops = [
  { kind: 'drop_answer', match: 'collections.create', times: 1 },
  { kind: 'drop_answer', match: 'collections.create', skip: 2, times: 1 },
];
const countHs = (type: string, prop: string, prefix: string) => () =>
  s.hs.portal.records.list(type).filter((r) => String(r.properties[prop] ?? '').startsWith(prefix)).length;
const countSf = (prefix: string) => () =>
  s.sf.org.query(`SELECT COUNT() FROM Account WHERE Name LIKE '${prefix}%'`, {}).totalSize;
const cars = String(s.hs.portal.types.resolve('p_cars')?.objectTypeId);

await run(
  'HubSpot',
  'insert contacts (email)',
  s.hs.url,
  hsDrops('objects.batch.create'),
  '/v1/object/insert/contacts',
  Array.from({ length: N }, (_, i) => ({ email: `tbl${i}@example.com` })),
  s.tokens.hubspot,
  countHs('0-1', 'email', 'tbl'),
);
await run(
  'HubSpot',
  'insert cars (unique vin)',
  s.hs.url,
  hsDrops('objects.batch.create'),
  '/v1/object/insert/cars',
  Array.from({ length: N }, (_, i) => ({ vin: `TBLVIN${i}` })),
  s.tokens.hubspot,
  countHs(cars, 'vin', 'TBLVIN'),
);
await run(
  'HubSpot',
  'insert deals (no unique property)',
  s.hs.url,
  hsDrops('objects.batch.create'),
  '/v1/object/insert/deals',
  Array.from({ length: N }, (_, i) => ({ dealname: `Tbl ${i}` })),
  s.tokens.hubspot,
  countHs('0-3', 'dealname', 'Tbl '),
);
await run(
  'Salesforce',
  'insert Account with External_Id__c (Collections)',
  s.sf.url,
  sfDrops,
  '/v1/object/insert/Account',
  Array.from({ length: N }, (_, i) => ({ Name: `TblX ${i}`, External_Id__c: `TX-${i}` })),
  s.tokens.salesforce,
  countSf('TblX '),
  'collections',
);
await run(
  'Salesforce',
  'insert Account without external id (Collections)',
  s.sf.url,
  sfDrops,
  '/v1/object/insert/Account',
  Array.from({ length: N }, (_, i) => ({ Name: `TblN ${i}` })),
  s.tokens.salesforce,
  countSf('TblN '),
  'collections',
);
await run(
  'Salesforce',
  'insert Account (Bulk 2.0; close and results answers lost)',
  s.sf.url,
  [
    { kind: 'drop_answer', match: 'bulk2.close' },
    { kind: 'drop_answer', match: 'bulk2.successfulResults' },
  ],
  '/v1/object/insert/Account',
  Array.from({ length: N }, (_, i) => ({ Name: `TblB ${i}`, External_Id__c: `TB-${i}` })),
  s.tokens.salesforce,
  countSf('TblB '),
  'bulk2',
);

// Upserts one record each: 20 per CRM, every answer lost (HubSpot: once, then resent; Salesforce: all 3 attempts).
const ups = async (
  crm: string,
  url: string,
  match: string,
  times: number,
  path: string,
  rec: (i: number) => unknown,
  key: string,
  token: string,
  held: () => number,
) => {
  const c = { written: 0, notWritten: 0, unknown: 0, other: 0 };
  for (let i = 0; i < 20; i++) {
    await faults(url, [{ kind: 'drop_answer', match, times }]);
    const a = await s.clock.fastForward(
      s.api<Answer>(path, { token, body: { data: [rec(i)], match_key: key } }),
    );
    const t1 = tally(a.body);
    c.written += t1.written;
    c.notWritten += t1.notWritten;
    c.unknown += t1.unknown;
    c.other += t1.other;
  }
  rows.push(
    `| ${crm} | upsert on ${key} (new records) | 20 | ${c.written} | ${c.notWritten} | ${c.unknown} | ${c.other} | ${held()} |`,
  );
};
await ups(
  'HubSpot',
  s.hs.url,
  'objects.batch.upsert',
  3,
  '/v1/object/upsert/contacts',
  (i) => ({ email: `tblu${i}@example.com` }),
  'email',
  s.tokens.hubspot,
  countHs('0-1', 'email', 'tblu'),
);
await ups(
  'Salesforce',
  s.sf.url,
  'rest.sobject.upsert',
  3,
  '/v1/object/upsert/Account',
  (i) => ({ Name: `TblU ${i}`, External_Id__c: `TU-${i}` }),
  'External_Id__c',
  s.tokens.salesforce,
  countSf('TblU '),
);

console.log(
  '| CRM | operation | records | written | not written | unknown | other | held by the CRM after |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
await s.close();
process.exit(0);
