// @hubspot/api-client (13.5) as the judge of the HubSpot sandbox: every method of the CRM apis the
// service and its users reach (crm.objects and the contacts, companies and deals apis, associations
// v3 batch and v4, pipelines, properties, owners, schemas) is called once, unpatched, and each wire
// answer is checked against HubSpot's OpenAPI document of that operation
// (test/fixtures/hubspot-openapi, excerpts of HubSpot-public-api-spec-collection; see its README).
// The methods are listed from the client itself, so a method the client adds fails here until it
// is called. The list `api.method → ok / failed (why)` is printed; methods the sandbox does not
// emulate are named in GAPS with the reason, and must keep failing until they are emulated.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import {
  clientMethods,
  documented,
  mismatch,
  type ObjectApis,
  objectCalls,
  type Run,
  recordingClient,
  spec,
} from './hubspot-client-coverage-helpers.ts';
import { call, startHubSpot } from './objects-helpers.ts';

/** Methods the sandbox does not emulate, with the reason; they must fail (and be listed) until they are. */
const GAPS: Record<string, string> = {
  'crm.pipelines.pipelineStageAuditsApi.getAudit':
    'client 13.5 sends /crm/v3/pipelines/{objectType}/{pipelineId}/stages/{stageId}/audit with a literal `{pipelineId}` (the method takes no pipeline id), which no pipeline has: 404 (the endpoint itself is tested in owners-pipelines.test.ts)',
};

test('@hubspot/api-client: every crm method once against the sandbox, answers as HubSpot documents them', async (t: TestContext) => {
  const hs = await startHubSpot(t);
  const { client, wire } = await recordingClient(t, hs);
  // Unique properties for the upserts of companies and deals (contacts upsert on email).
  for (const type of ['companies', 'deals']) {
    const made = await call(hs, 'POST', `/crm/v3/properties/${type}`, {
      name: 'cov_key',
      label: 'Coverage key',
      type: 'string',
      fieldType: 'text',
      groupName: `${type === 'deals' ? 'deal' : 'company'}information`,
      hasUniqueValue: true,
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
  }
  const [contactA, contactB] = hs.portal.records.list('0-1');
  const [company] = hs.portal.records.list('0-2');
  assert.ok(contactA && contactB && company);
  const crm = client.crm as unknown as Record<string, ObjectApis>;
  const v4 = client.crm.associations.v4;
  const stamp = (n: number) => `cov${n}`;
  const calls: Array<[string, Run]> = [
    ...objectCalls(
      'crm.objects',
      crm['objects'] as ObjectApis,
      'contacts',
      (n) => ({ email: `${stamp(n)}@objects.example`, firstname: `O${n}` }),
      'email',
    ),
    ...objectCalls(
      'crm.contacts',
      crm['contacts'] as ObjectApis,
      null,
      (n) => ({ email: `${stamp(n)}@contacts.example`, firstname: `C${n}` }),
      'email',
    ),
    ...objectCalls(
      'crm.companies',
      crm['companies'] as ObjectApis,
      null,
      (n) => ({ name: `Company ${n}`, cov_key: `co-${n}` }),
      'cov_key',
    ),
    ...objectCalls(
      'crm.deals',
      crm['deals'] as ObjectApis,
      null,
      (n) => ({ dealname: `Deal ${n}`, cov_key: `de-${n}` }),
      'cov_key',
    ),
  ];
  const from = { id: contactA.id };
  const to = { id: company.id };
  calls.push(
    [
      'crm.associations.batchApi.create',
      () =>
        client.crm.associations.batchApi.create('contacts', 'companies', {
          inputs: [{ _from: from, to, type: 'contact_to_company' }],
        }),
    ],
    [
      'crm.associations.batchApi.read',
      () => client.crm.associations.batchApi.read('contacts', 'companies', { inputs: [from] }),
    ],
    [
      'crm.associations.batchApi.archive',
      () =>
        client.crm.associations.batchApi.archive('contacts', 'companies', {
          inputs: [{ _from: from, to, type: 'contact_to_company' }],
        }),
    ],
    [
      'crm.associations.v4.basicApi.createDefault',
      () => v4.basicApi.createDefault('contacts', contactA.id, 'companies', company.id),
    ],
    [
      'crm.associations.v4.basicApi.create',
      () =>
        v4.basicApi.create('contacts', contactA.id, 'companies', company.id, [spec('HUBSPOT_DEFINED', 1)]),
    ],
    ['crm.associations.v4.basicApi.getPage', () => v4.basicApi.getPage('contacts', contactA.id, 'companies')],
    [
      'crm.associations.v4.basicApi.archive',
      () => v4.basicApi.archive('contacts', contactA.id, 'companies', company.id),
    ],
    [
      'crm.associations.v4.batchApi.createDefault',
      () =>
        v4.batchApi.createDefault('contacts', 'companies', { inputs: [{ _from: { id: contactB.id }, to }] }),
    ],
    [
      'crm.associations.v4.batchApi.create',
      () =>
        v4.batchApi.create('contacts', 'companies', {
          inputs: [{ _from: { id: contactB.id }, to, types: [spec('HUBSPOT_DEFINED', 1)] }],
        }),
    ],
    [
      'crm.associations.v4.batchApi.getPage',
      () => v4.batchApi.getPage('contacts', 'companies', { inputs: [{ id: contactB.id }] }),
    ],
    [
      'crm.associations.v4.batchApi.archiveLabels',
      () =>
        v4.batchApi.archiveLabels('contacts', 'companies', {
          inputs: [{ _from: { id: contactB.id }, to, types: [spec('HUBSPOT_DEFINED', 1)] }],
        }),
    ],
    [
      'crm.associations.v4.batchApi.archive',
      () =>
        v4.batchApi.archive('contacts', 'companies', { inputs: [{ _from: { id: contactB.id }, to: [to] }] }),
    ],
    ['crm.associations.v4.reportApi.request', () => v4.reportApi.request(1122334)],
  );
  const p = client.crm.pipelines;
  let pipelineId = '';
  let stageId = '';
  const stage = (label: string, order: number) => ({
    label,
    displayOrder: order,
    metadata: { probability: '0.5' },
  });
  calls.push(
    [
      'crm.pipelines.pipelinesApi.create',
      async () => {
        pipelineId = (
          await p.pipelinesApi.create('deals', {
            label: 'Coverage',
            displayOrder: 9,
            stages: [stage('Open', 0)],
          })
        ).id;
      },
    ],
    ['crm.pipelines.pipelinesApi.getAll', () => p.pipelinesApi.getAll('deals')],
    ['crm.pipelines.pipelinesApi.getById', () => p.pipelinesApi.getById('deals', pipelineId)],
    [
      'crm.pipelines.pipelinesApi.update',
      () => p.pipelinesApi.update('deals', pipelineId, { label: 'Coverage 2' }),
    ],
    [
      'crm.pipelines.pipelinesApi.replace',
      () =>
        p.pipelinesApi.replace('deals', pipelineId, {
          label: 'Coverage 3',
          displayOrder: 9,
          stages: [stage('Open', 0), stage('Won', 1)],
        }),
    ],
    [
      'crm.pipelines.pipelineStagesApi.create',
      async () => {
        stageId = (await p.pipelineStagesApi.create('deals', pipelineId, stage('Later', 2))).id;
      },
    ],
    ['crm.pipelines.pipelineStagesApi.getAll', () => p.pipelineStagesApi.getAll('deals', pipelineId)],
    [
      'crm.pipelines.pipelineStagesApi.getById',
      () => p.pipelineStagesApi.getById('deals', pipelineId, stageId),
    ],
    [
      'crm.pipelines.pipelineStagesApi.update',
      () => p.pipelineStagesApi.update('deals', pipelineId, stageId, { label: 'Later 2' }),
    ],
    [
      'crm.pipelines.pipelineStagesApi.replace',
      () => p.pipelineStagesApi.replace('deals', pipelineId, stageId, stage('Later 3', 2)),
    ],
    ['crm.pipelines.pipelineAuditsApi.getAudit', () => p.pipelineAuditsApi.getAudit('deals', pipelineId)],
    [
      'crm.pipelines.pipelineStageAuditsApi.getAudit',
      () => p.pipelineStageAuditsApi.getAudit('deals', stageId),
    ],
    [
      'crm.pipelines.pipelineStagesApi.archive',
      () => p.pipelineStagesApi.archive('deals', pipelineId, stageId),
    ],
    ['crm.pipelines.pipelinesApi.archive', () => p.pipelinesApi.archive('deals', pipelineId)],
  );
  const pr = client.crm.properties;
  const prop = (name: string) => ({
    name,
    label: name,
    type: 'string' as never,
    fieldType: 'text' as never,
    groupName: 'cov_group',
  });
  calls.push(
    [
      'crm.properties.groupsApi.create',
      () => pr.groupsApi.create('contacts', { name: 'cov_group', label: 'Coverage' }),
    ],
    ['crm.properties.groupsApi.getAll', () => pr.groupsApi.getAll('contacts')],
    ['crm.properties.groupsApi.getByName', () => pr.groupsApi.getByName('contacts', 'cov_group')],
    [
      'crm.properties.groupsApi.update',
      () => pr.groupsApi.update('contacts', 'cov_group', { label: 'Coverage 2' }),
    ],
    ['crm.properties.coreApi.create', () => pr.coreApi.create('contacts', prop('cov_one'))],
    ['crm.properties.coreApi.getAll', () => pr.coreApi.getAll('contacts')],
    ['crm.properties.coreApi.getByName', () => pr.coreApi.getByName('contacts', 'cov_one')],
    ['crm.properties.coreApi.update', () => pr.coreApi.update('contacts', 'cov_one', { label: 'One' })],
    [
      'crm.properties.batchApi.create',
      () => pr.batchApi.create('contacts', { inputs: [prop('cov_two'), prop('cov_three')] }),
    ],
    [
      'crm.properties.batchApi.read',
      () =>
        pr.batchApi.read('contacts', { archived: false, inputs: [{ name: 'cov_two' }, { name: 'email' }] }),
    ],
    [
      'crm.properties.batchApi.archive',
      () => pr.batchApi.archive('contacts', { inputs: [{ name: 'cov_two' }, { name: 'cov_three' }] }),
    ],
    ['crm.properties.coreApi.archive', () => pr.coreApi.archive('contacts', 'cov_one')],
    ['crm.properties.groupsApi.archive', () => pr.groupsApi.archive('contacts', 'cov_group')],
    ['crm.owners.ownersApi.getPage', () => client.crm.owners.ownersApi.getPage(undefined, undefined, 2)],
    ['crm.owners.ownersApi.getById', () => client.crm.owners.ownersApi.getById(101)],
  );
  const sc = client.crm.schemas.coreApi;
  let typeId = '';
  let associationId = '';
  calls.push(
    [
      'crm.schemas.coreApi.create',
      async () => {
        typeId =
          (
            await sc.create({
              name: 'coverage_pets',
              labels: { singular: 'Pet', plural: 'Pets' },
              requiredProperties: ['pet_name'],
              primaryDisplayProperty: 'pet_name',
              secondaryDisplayProperties: [],
              searchableProperties: ['pet_name'],
              associatedObjects: ['CONTACT'],
              properties: [{ name: 'pet_name', label: 'Name', type: 'string' as never, fieldType: 'text' }],
            })
          ).objectTypeId ?? '';
      },
    ],
    ['crm.schemas.coreApi.getAll', () => sc.getAll()],
    ['crm.schemas.coreApi.getById', () => sc.getById(typeId)],
    ['crm.schemas.coreApi.update', () => sc.update(typeId, { description: 'Pets of contacts' })],
    [
      'crm.schemas.coreApi.createAssociation',
      async () => {
        associationId = (
          await sc.createAssociation(typeId, {
            fromObjectTypeId: typeId,
            toObjectTypeId: '0-2',
            name: 'pet_to_company',
          })
        ).id;
      },
    ],
    ['crm.schemas.coreApi.archiveAssociation', () => sc.archiveAssociation(typeId, associationId)],
    ['crm.schemas.coreApi.archive', () => sc.archive(typeId)],
  );

  const results = new Map<string, string>();
  for (const [name, run] of calls) {
    const start = wire.length;
    let outcome: string;
    try {
      await run();
      const bad = wire
        .slice(start)
        .map(mismatch)
        .filter((m) => m !== null);
      const seen = wire.slice(start);
      const unchecked = seen.length === 0 || seen.some((w) => !documented(w));
      outcome =
        bad.length > 0
          ? `failed: ${bad.join(' | ')}`
          : unchecked
            ? 'ok (no HubSpot document of this answer)'
            : 'ok';
    } catch (error) {
      const e = error as { code?: number; body?: unknown; message?: string };
      outcome = `failed: ${e.code ?? ''} ${JSON.stringify(e.body ?? e.message ?? error).slice(0, 200)}`;
    }
    results.set(name, outcome);
  }
  for (const name of clientMethods(client))
    if (!results.has(name)) results.set(name, 'failed: not called by this test');
  const lines = [...results].sort(([a], [b]) => a.localeCompare(b)).map(([n, r]) => `${n} → ${r}`);
  t.diagnostic(`\n${lines.join('\n')}`);
  console.log(lines.join('\n'));

  const unexpected = [...results]
    .filter(([n, r]) => r.startsWith('ok') === n in GAPS)
    .map(([n, r]) => `${n} → ${r}`);
  assert.deepEqual(unexpected, [], 'methods whose result differs from GAPS');
  assert.equal(results.size, clientMethods(client).length, 'every call is a method of the client');
});
