import { rawRequest } from './raw-http.ts';

/**
 * The most expensive requests the API accepts or must refuse, each at a size limit. Bodies are
 * built lazily (and before measuring starts), as raw bytes.
 */
export interface WorstInput {
  name: string;
  token: 'salesforce' | 'hubspot';
  method: string;
  path: string;
  headers?: Array<[string, string]>;
  body?: () => Buffer;
}

const MAX_RECORDS = 10_000;
const MAX_IDS = 10_000;
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const sfId = (i: number) => `001${i.toString(36).padStart(12, '0')}AAA`;

/** `{"data":[…]}` of `count` records, each padded with one long field to fill `bytes` in all. */
function recordsFilling(
  bytes: number,
  count: number,
  field: string,
  extra: (i: number) => object = () => ({}),
) {
  const overhead = 64;
  const valueLength = Math.max(1, Math.floor(bytes / count) - overhead);
  const value = 'x'.repeat(valueLength);
  return () => json({ data: Array.from({ length: count }, (_, i) => ({ ...extra(i), [field]: value })) });
}

function manyKeys(count: number, perRecord: number) {
  return () => {
    const records = Array.from({ length: Math.ceil(count / perRecord) }, (_, r) => {
      const record: Record<string, number> = {};
      for (let k = 0; k < perRecord; k += 1) record[`Unknown_${r}_${k}__c`] = k;
      return record;
    });
    return json({ data: records });
  };
}

/** `bytes` of JSON nested as deep as that allows. */
const deepest = (bytes: number) => () => {
  const depth = Math.floor((bytes - 40) / 2);
  return Buffer.from(`{"data":[{"Name":${'['.repeat(depth)}${']'.repeat(depth)}}]}`);
};

function longSoql(chars: number) {
  const names: string[] = [];
  let length = 'SELECT Id, Name FROM Account WHERE Name IN ()'.length;
  for (let i = 0; length < chars - 20; i += 1) {
    const item = `'n${i}'`;
    names.push(item);
    length += item.length + 1;
  }
  return `SELECT Id, Name FROM Account WHERE Name IN (${names.join(',')})`;
}

export function worstInputs(bodyLimit: number): WorstInput[] {
  // A little under the limit: the envelope and JSON escaping add a few bytes.
  const fill = Math.floor(bodyLimit * 0.97);
  return [
    {
      name: 'insert 10 000 records filling the body limit (Salesforce, Bulk API)',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/insert/Account',
      // With the sandbox's allowance mostly left the service would pick Collections: the Bulk path is asked for.
      headers: [['X-CRM-Proxy-Interface', 'bulk2']],
      body: recordsFilling(fill, MAX_RECORDS, 'Description', (i) => ({ Name: `Worst ${i}` })),
    },
    {
      name: 'insert 10 000 records filling the body limit (HubSpot: parsed, validated, refused)',
      token: 'hubspot',
      method: 'POST',
      path: '/v1/object/insert/Account',
      body: recordsFilling(fill, MAX_RECORDS, 'Description'),
    },
    {
      name: 'insert 10 000 contacts filling the body limit (HubSpot: formatted, written in 100 paced batches)',
      token: 'hubspot',
      method: 'POST',
      path: '/v1/object/insert/contacts',
      // The other properties take about 120 bytes a record: leave room for them under the limit.
      body: recordsFilling(fill - MAX_RECORDS * 120, MAX_RECORDS, 'jobtitle', (i) => ({
        email: `worst${i}@example.com`,
        lifecyclestage: i % 2 === 0 ? 'Lead' : 'custmer',
        hs_latest_source_timestamp: '2025-03-04T00:00:00Z',
      })),
    },
    {
      name: 'update 10 000 records filling the body limit (Salesforce)',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/update/Account',
      body: recordsFilling(fill, MAX_RECORDS, 'Description', (i) => ({ id: sfId(i) })),
    },
    {
      name: 'insert 10 000 empty records (Salesforce)',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/insert/Account',
      body: () => json({ data: Array.from({ length: MAX_RECORDS }, () => ({})) }),
    },
    {
      name: 'one field value as long as the body limit allows',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/insert/Account',
      body: () => json({ data: [{ Name: 'Long', Description: 'é'.repeat(Math.floor(fill / 2)) }] }),
    },
    {
      name: 'a 1 MB field name',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/insert/Account',
      body: () => json({ data: [{ ['N'.repeat(1_000_000)]: 1 }] }),
    },
    {
      name: '100 000 unknown field names in one record',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/insert/Account',
      body: manyKeys(100_000, 100_000),
    },
    {
      name: '100 000 unknown field names over 10 000 records',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/update/Account',
      body: manyKeys(100_000, 10),
    },
    {
      name: 'one object with as many keys as the body limit allows',
      token: 'hubspot',
      method: 'POST',
      path: '/v1/describe',
      body: () => {
        const count = Math.floor(fill / 12);
        const keys = Array.from({ length: count }, (_, i) => `"${i.toString(36)}":0`);
        return Buffer.from(`{${keys.join(',')}}`);
      },
    },
    {
      name: 'JSON nested as deep as the body limit allows',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/insert/Account',
      body: deepest(fill),
    },
    {
      name: 'the longest SOQL the schema accepts (100 000 characters)',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/soql',
      body: () => json({ data: longSoql(100_000) }),
    },
    {
      name: 'the longest SOQL Salesforce accepts in its query URL',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/soql',
      body: () => json({ data: longSoql(13_000) }),
    },
    {
      name: 'get 10 000 ids with every field (Salesforce)',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/get/Account',
      body: () => json({ data: { ids: Array.from({ length: MAX_IDS }, (_, i) => sfId(i)) } }),
    },
    {
      name: 'get 10 000 ids with 1 000 unknown fields (Salesforce)',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/get/Account',
      body: () =>
        json({
          data: {
            ids: Array.from({ length: MAX_IDS }, (_, i) => sfId(i)),
            fields: Array.from({ length: 1_000 }, (_, i) => `Unknown_Field_${'x'.repeat(200)}_${i}`),
          },
        }),
    },
    {
      name: 'get 100 ids with 1 000 fields (HubSpot)',
      token: 'hubspot',
      method: 'POST',
      path: '/v1/object/get/contacts',
      body: () =>
        json({
          data: {
            ids: Array.from({ length: 100 }, (_, i) => String(1000 + i)),
            fields: Array.from({ length: 1_000 }, (_, i) => `property_${'x'.repeat(200)}_${i}`),
          },
        }),
    },
    {
      name: 'delete 10 000 ids (Salesforce)',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/delete',
      body: () => json({ data: { ids: Array.from({ length: MAX_IDS }, (_, i) => sfId(i)) } }),
    },
    {
      name: 'upsert one record with 1 000 fields',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/upsert/Account',
      body: () => {
        const record: Record<string, string> = { Name: 'Upsert' };
        for (let i = 0; i < 1_000; i += 1) record[`Field_${i}__c`] = 'v'.repeat(100);
        return json({ data: [record], match_key: 'Name' });
      },
    },
    {
      name: 'add a picklist field with 10 000 values',
      token: 'salesforce',
      method: 'POST',
      path: '/v1/object/add_custom_field/Account',
      body: () =>
        json({
          data: {
            name: 'Worst_Pick',
            label: 'Worst',
            type: 'Picklist',
            valueSet: {
              valueSetDefinition: {
                value: Array.from({ length: 10_000 }, (_, i) => ({ fullName: `v${i}`, label: `v${i}` })),
              },
            },
          },
        }),
    },
    { name: 'describe every object', token: 'salesforce', method: 'POST', path: '/v1/describe' },
    {
      name: 'pass-through with 15 KB of headers',
      token: 'hubspot',
      method: 'GET',
      path: '/v1/proxy/crm/v3/objects/contacts?limit=100',
      headers: Array.from({ length: 150 }, (_, i) => [`X-Fill-${i}`, 'h'.repeat(90)] as [string, string]),
    },
    {
      name: 'pass-through upload as large as the body limit (streamed)',
      token: 'hubspot',
      method: 'POST',
      path: '/v1/proxy/crm/v3/objects/contacts/batch/create',
      headers: [['Content-Type', 'application/json']],
      body: () =>
        json({
          inputs: Array.from({ length: 1_000 }, (_, i) => ({
            properties: { email: `w${i}@example.com`, notes: 'n'.repeat(Math.floor(fill / 1_000) - 80) },
          })),
        }),
    },
    {
      name: 'pass-through download of many records',
      token: 'salesforce',
      method: 'GET',
      path: '/v1/proxy/services/data/v62.0/query?q=SELECT+Id,Name,Description+FROM+Account',
    },
  ];
}

/**
 * Sends `input` with `body` (built beforehand, so that building it is not measured): the token
 * given, JSON unless the input names its own content type, and the input's own headers.
 */
export function sendInput(baseUrl: string, token: string, input: WorstInput, body: Buffer | undefined) {
  const headers: Array<[string, string]> = [['Authorization', `Bearer ${token}`]];
  if (body !== undefined && !input.headers?.some(([h]) => h.toLowerCase() === 'content-type'))
    headers.push(['Content-Type', 'application/json']);
  headers.push(...(input.headers ?? []));
  return rawRequest(baseUrl, {
    method: input.method,
    path: input.path,
    headers,
    ...(body === undefined ? {} : { body }),
    timeoutMs: 300_000,
  });
}
