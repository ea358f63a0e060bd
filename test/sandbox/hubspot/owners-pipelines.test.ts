import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startHubSpotSandbox } from '../../../sandbox/hubspot/index.ts';

async function start(t: { after: (fn: () => Promise<void>) => void }) {
  const hs = await startHubSpotSandbox({ port: 0, rateLimit: { enabled: false } });
  t.after(() => hs.close());
  const get = async (path: string) => {
    const res = await fetch(`${hs.url}${path}`, {
      headers: { authorization: `Bearer ${hs.credentials.accessToken}` },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { hs, get };
}

type Owner = { id: string; email: string; userId: number };

test('owners: list with paging, email filter, get by id and by userId, 404', async (t) => {
  const { get } = await start(t);
  const all = await get('/crm/v3/owners');
  assert.equal(all.status, 200);
  const owners = all.body.results as Owner[];
  assert.ok(owners.length >= 2);
  const page1 = await get('/crm/v3/owners/?limit=1');
  assert.equal((page1.body.results as Owner[]).length, 1);
  const next = (page1.body.paging as { next: { after: string; link: string } }).next;
  assert.ok(next.link.includes(`after=${next.after}`));
  const page2 = await get(`/crm/v3/owners?limit=1&after=${next.after}`);
  assert.equal((page2.body.results as Owner[])[0]?.id, owners[1]?.id);
  const first = owners[0]!;
  const byEmail = await get(`/crm/v3/owners?email=${encodeURIComponent(first.email.toUpperCase())}`);
  assert.deepEqual(
    (byEmail.body.results as Owner[]).map((o) => o.id),
    [first.id],
  );
  assert.equal((await get(`/crm/v3/owners/${first.id}`)).body.email, first.email);
  assert.equal((await get(`/crm/v3/owners/${first.userId}?idProperty=userId`)).body.id, first.id);
  const missing = await get('/crm/v3/owners/999999999');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.status, 'error');
});

type Stage = { id: string; label: string; displayOrder: number; metadata: Record<string, string> };
type Pipeline = { id: string; label: string; stages: Stage[] };

test('pipelines: deals and tickets with stages; one pipeline, its stages, one stage; errors', async (t) => {
  const { get } = await start(t);
  const deals = await get('/crm/v3/pipelines/deals');
  assert.equal(deals.status, 200);
  const list = deals.body.results as Pipeline[];
  const def = list.find((p) => p.id === 'default');
  assert.ok(def !== undefined);
  assert.ok(def.stages.length > 0);
  assert.equal(typeof def.stages[0]?.metadata.probability, 'string');
  const tickets = await get('/crm/v3/pipelines/tickets');
  assert.ok((tickets.body.results as Pipeline[]).length > 0);
  assert.equal((await get('/crm/v3/pipelines/0-3/default')).body.id, 'default');
  const stages = await get('/crm/v3/pipelines/deals/default/stages');
  assert.deepEqual(
    (stages.body.results as Stage[]).map((s) => s.id),
    def.stages.map((s) => s.id),
  );
  const stageId = def.stages[0]!.id;
  assert.equal((await get(`/crm/v3/pipelines/deals/default/stages/${stageId}`)).body.id, stageId);
  assert.equal((await get('/crm/v3/pipelines/deals/nope')).status, 404);
  assert.equal((await get('/crm/v3/pipelines/deals/default/stages/nope')).status, 404);
  assert.equal((await get('/crm/v3/pipelines/contacts')).status, 400);
  assert.equal((await get('/crm/v3/pipelines/unicorns')).status, 400);
});

type Audit = { identifier: string; action: string; portalId: number; fromUserId: number; timestamp: string };

test('pipeline and stage audits: every change, newest first, in PublicAuditInfo shape; 404 for unknown ones', async (t) => {
  const { hs, get } = await start(t);
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${hs.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${hs.credentials.accessToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const stage = { label: 'Open', displayOrder: 0, metadata: { probability: '0.5' } };
  const created = await send('POST', '/crm/v3/pipelines/deals', {
    label: 'Audited',
    displayOrder: 7,
    stages: [stage],
  });
  const pipeline = (await created.json()) as Pipeline;
  await send('PATCH', `/crm/v3/pipelines/deals/${pipeline.id}`, { label: 'Audited 2' });
  const stageId = pipeline.stages[0]!.id;
  await send('PATCH', `/crm/v3/pipelines/deals/${pipeline.id}/stages/${stageId}`, { label: 'Opened' });

  const audits = await get(`/crm/v3/pipelines/deals/${pipeline.id}/audit`);
  assert.equal(audits.status, 200);
  const list = audits.body.results as Audit[];
  assert.deepEqual(
    list.map((a) => a.action),
    ['UPDATE', 'UPDATE', 'CREATE'],
  );
  assert.equal(list[0]?.portalId, hs.portal.portalId);
  assert.equal(list[0]?.fromUserId, 1122334);
  const stageAudits = (await get(`/crm/v3/pipelines/deals/${pipeline.id}/stages/${stageId}/audit`)).body
    .results as Audit[];
  assert.deepEqual(
    stageAudits.map((a) => a.action),
    ['UPDATE', 'CREATE'],
  );
  assert.equal((await get('/crm/v3/pipelines/deals/nope/audit')).status, 404);
  assert.equal((await get(`/crm/v3/pipelines/deals/${pipeline.id}/stages/nope/audit`)).status, 404);
});
