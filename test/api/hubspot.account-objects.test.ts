import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, startStack } from '../helpers/stack.ts';

type Row = Record<string, unknown>;
interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
}
interface Page {
  data: { totalSize: number; done: boolean; records: Row[]; next_cursor: string | null };
}

const get = <T = { data: Array<Row | null> }>(
  s: Stack,
  object: string,
  data: unknown,
  token = s.tokens.hubspot,
) => s.api<T>(`/v1/object/get/${object}`, { token, body: { data } });
const query = <T = Page>(s: Stack, object: string, data: unknown) =>
  s.api<T>(`/v1/object/query/${object}`, { token: s.tokens.hubspot, body: { data } });

test('owners: by id (archived ones too) in HubSpot’s shape, listed, filtered by email or archived', async (t) => {
  const s = await startStack(t);
  const [live] = s.hs.portal.owners.list();
  assert.ok(live);
  s.hs.portal.owners.load([
    { ...live, id: '999', email: 'gone@sandbox.example', userId: 42, archived: true },
  ]);

  const byId = await get(s, 'owners', { ids: ['999', 'nope', live.id] });
  assert.equal(byId.status, 200, byId.text.slice(0, 300));
  const [archived, missing, first] = byId.body.data;
  assert.equal(archived?.['email'], 'gone@sandbox.example');
  assert.equal(archived?.['archived'], true);
  assert.equal(missing, null);
  assert.deepEqual(first, JSON.parse(JSON.stringify(live)));

  const all = await query(s, 'owners', {});
  assert.equal(all.status, 200, all.text.slice(0, 300));
  assert.deepEqual(
    all.body.data.records.map((o) => o['id']),
    s.hs.portal.owners.list().map((o) => o.id),
  );
  assert.equal(all.body.data.done, true);

  const email = await query(s, 'owners', {
    filterGroups: [{ filters: [{ propertyName: 'email', operator: 'EQ', value: live.email.toUpperCase() }] }],
  });
  assert.deepEqual(
    email.body.data.records.map((o) => o['id']),
    [live.id],
  );
  const gone = await query(s, 'owners', {
    filterGroups: [{ filters: [{ propertyName: 'archived', operator: 'EQ', value: true }] }],
  });
  assert.deepEqual(
    gone.body.data.records.map((o) => o['id']),
    ['999'],
  );
  const sorted = await query<ErrorBody>(s, 'owners', { sorts: ['email'] });
  assert.equal(sorted.status, 400);
  assert.equal(sorted.body.error.code, 'invalid_query');

  const write = await s.api<ErrorBody>('/v1/object/insert/owners', {
    token: s.tokens.hubspot,
    body: { data: [{ email: 'x@example.com' }] },
  });
  assert.equal(write.status, 422);
  assert.equal(write.body.error.code, 'object_not_supported');
});

test('pipelines with their stages, and stages with their pipeline, for deals and tickets', async (t) => {
  const s = await startStack(t);
  const deals = await query(s, 'deal_pipelines', {});
  assert.equal(deals.status, 200, deals.text.slice(0, 300));
  assert.deepEqual(
    deals.body.data.records.map((p) => p['id']),
    s.hs.portal.pipelines.list('0-3').map((p) => p.id),
  );
  const one = await get(s, 'deal_pipelines', { ids: ['default', 'missing'] });
  assert.equal((one.body.data[0]?.['stages'] as Row[] | undefined)?.length, 7);
  assert.equal(one.body.data[1], null);

  const stages = await get(s, 'deal_stages', { ids: ['closedwon', 'nope'] });
  assert.equal(stages.body.data[0]?.['label'], 'Closed Won');
  assert.equal(stages.body.data[0]?.['pipelineId'], 'default');
  assert.equal(stages.body.data[1], null);

  const tickets = await query(s, 'ticket_stages', {
    filterGroups: [{ filters: [{ propertyName: 'pipelineId', operator: 'EQ', value: '0' }] }],
  });
  assert.ok(tickets.body.data.records.length > 0);
  assert.ok(tickets.body.data.records.every((r) => r['pipelineId'] === '0'));
});

test('audit: property history of given records through get, under HubSpot’s own limit of 50 ids', async (t) => {
  const s = await startStack(t);
  const created = await s.api<{ data: Array<{ id: string }> }>('/v1/object/insert/contacts', {
    token: s.tokens.hubspot,
    body: { data: [{ email: 'audit@example.com', lifecyclestage: 'lead' }] },
  });
  const id = created.body.data[0]?.id as string;
  for (const stage of ['opportunity', 'customer']) {
    const updated = await s.api('/v1/object/update/contacts', {
      token: s.tokens.hubspot,
      body: { data: [{ id, lifecyclestage: stage }] },
    });
    assert.equal(updated.status, 200);
  }
  const answer = await get<{
    data: Array<{ propertiesWithHistory: Record<string, Array<{ value: string }>> }>;
  }>(s, 'contacts', { ids: [id], fields: ['email'], propertiesWithHistory: ['LifecycleStage'] });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.deepEqual(
    answer.body.data[0]?.propertiesWithHistory['lifecyclestage']?.map((h) => h.value),
    ['customer', 'opportunity', 'lead'],
  );

  const tooMany = await get<ErrorBody>(s, 'contacts', {
    ids: Array.from({ length: 51 }, (_, i) => String(i + 1)),
    propertiesWithHistory: ['email'],
  });
  assert.equal(tooMany.status, 400);
  assert.equal(tooMany.body.error.code, 'too_many_ids');
  const unknown = await get<ErrorBody>(s, 'contacts', {
    ids: [id],
    propertiesWithHistory: ['lifecyclestag'],
  });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.error.details[0]?.['did_you_mean'], 'lifecyclestage');

  const sf = await get<ErrorBody>(
    s,
    'Account',
    { ids: ['001000000000001AAA'], propertiesWithHistory: ['Name'] },
    s.tokens.salesforce,
  );
  assert.equal(sf.status, 400);
  assert.match(sf.body.error.message, /Salesforce keeps no property history/);
});

test('pipelines and stages are created and pipelines renamed through insert and update; HubSpot’s refusals land on their record', async (t) => {
  const s = await startStack(t);
  type Result = { id?: string; success: boolean; errors: Array<{ statusCode: string; message: string }> };
  const write = (path: string, data: unknown) =>
    s.api<{ data: Result[] }>(path, { token: s.tokens.hubspot, body: { data } });
  const created = await write('/v1/object/insert/deal_pipelines', [
    {
      label: 'Partners',
      displayOrder: 4,
      stages: [{ label: 'Signed', displayOrder: 0, metadata: { probability: '0.5' } }],
    },
    { label: 'No probability', displayOrder: 5, stages: [{ label: 'x', displayOrder: 0, metadata: {} }] },
  ]);
  assert.equal(created.status, 200, created.text.slice(0, 300));
  const [ok, refused] = created.body.data;
  assert.equal(ok?.success, true);
  assert.equal(refused?.success, false);
  assert.match(refused?.errors[0]?.message ?? '', /probability/);
  const id = ok?.id as string;

  const renamed = await write('/v1/object/update/deal_pipelines', [{ id, label: 'Partner deals' }]);
  assert.deepEqual(renamed.body.data, [{ id, success: true, errors: [] }]);
  const stage = await write('/v1/object/insert/deal_stages', [
    { pipelineId: id, label: 'Renewal', displayOrder: 1, metadata: { probability: '0.9' } },
    { label: 'Orphan', displayOrder: 2, metadata: { probability: '0.1' } },
  ]);
  assert.equal(stage.body.data[0]?.success, true);
  assert.equal(stage.body.data[1]?.errors[0]?.statusCode, 'REQUIRED_FIELD');

  const read = await get(s, 'deal_pipelines', { ids: [id] });
  assert.equal(read.body.data[0]?.['label'], 'Partner deals');
  assert.deepEqual(
    (read.body.data[0]?.['stages'] as Row[] | undefined)?.map((x) => x['label']),
    ['Signed', 'Renewal'],
  );
});
