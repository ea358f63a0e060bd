import type { OperationExample } from './http/plugins/openapi-routes.ts';

// Examples of the OpenAPI document: a request and an answer for every operation (by operationId;
// one error body per error code is in api-error-examples.ts). They show real CRM shapes (object
// names, ids), so they live here, beside the composition root, and reach the HTTP layer through
// `buildApp`. The API reference shows them and its "try it" starts from the request examples.
// test/api/docs.test.ts checks that every operation and every error code has one.

/** Request id shown in the examples. */
export const EXAMPLE_REQUEST_ID = 'req_3dbfT8zKq1V0x2aLm9Yc';

const SF_ID = '001XXXXXXXXXXXXAAA';
const SF_ID_2 = '001XXXXXXXXXXXXAAB';
/** Accounts the Salesforce sandbox seeds: "try it" on get answers them as they are. */
const SEEDED_ID = '0014S000000KyjBQAS';
const SEEDED_ID_2 = '0014S000000KyjEQAS';
export const JOB_ID = 'job_8kT2mQvX4nR7bL1c';

const result = (id: string) => ({ id, success: true, errors: [] });

const JOB = {
  id: JOB_ID,
  state: 'completed',
  operation: 'insert',
  object: 'Account',
  interface: 'collections',
  counts: { total: 2, processed: 2, succeeded: 2, failed: 0 },
  crm_job_ids: [],
  cancel_requested: false,
  created_at: '2026-03-02T09:30:00.000Z',
  started_at: '2026-03-02T09:30:00.010Z',
  finished_at: '2026-03-02T09:30:00.480Z',
  updated_at: '2026-03-02T09:30:00.480Z',
  error: null,
  results_url: `/v1/jobs/${JOB_ID}/results`,
};
const QUEUED_JOB = {
  ...JOB,
  state: 'queued',
  interface: null,
  counts: { total: 2, processed: 0, succeeded: 0, failed: 0 },
  started_at: null,
  finished_at: null,
  updated_at: '2026-03-02T09:30:00.000Z',
};
const WRITE_RESULTS = { data: [result(SF_ID), result(SF_ID_2)] };
const account = (id: string) => ({
  attributes: { type: 'Account', url: `/services/data/v62.0/sobjects/Account/${id}` },
});
const ACCOUNT = account(SF_ID);

const CONNECTION = {
  id: 'conn_5Wq8ZrT1',
  provider: 'salesforce',
  providerName: 'Salesforce',
  label: 'Production org',
  region: 'eu',
  sandbox: false,
  status: 'active',
  lastError: null,
  lastErrorAt: null,
  createdAt: '2026-03-01T08:00:00.000Z',
  lastUsedAt: '2026-03-02T09:30:00.000Z',
  allowance: { used: 1250, limit: 15000, left: 13750, at: '2026-03-02T09:30:00.000Z' },
};
const TOKEN = {
  id: 'tok_Qm3v8Lx2',
  connectionId: CONNECTION.id,
  name: 'billing-sync',
  prefix: 'crmp_eu_Qm3v…',
  region: 'eu',
  createdAt: '2026-03-01T08:05:00.000Z',
  lastUsedAt: '2026-03-02T09:30:00.000Z',
  expiresAt: null,
  revokedAt: null,
  state: 'active',
};
const LINK = {
  id: 'cl_Z2n7Kd4P',
  provider: 'hubspot',
  label: 'Acme',
  createdAt: '2026-03-02T09:30:00.000Z',
  expiresAt: '2026-03-03T09:30:00.000Z',
  usedAt: null,
  revokedAt: null,
  connectionId: null,
};

export const OPERATION_EXAMPLES: Record<string, OperationExample> = {
  insertRecords: {
    params: { object_name: 'Account' },
    request: { data: [{ Name: 'Acme', Industry: 'Energy' }, { Name: 'Globex' }] },
    responses: { '200': WRITE_RESULTS, '202': QUEUED_JOB },
  },
  updateRecords: {
    params: { object_name: 'Account' },
    request: {
      data: [
        { id: SF_ID, Industry: 'Utilities' },
        { id: SF_ID_2, Name: 'Globex Corporation' },
      ],
    },
    responses: { '200': WRITE_RESULTS, '202': { ...QUEUED_JOB, operation: 'update' } },
  },
  upsertRecord: {
    params: { object_name: 'Account' },
    request: { data: [{ External_Id__c: 'P-1', Name: 'Acme' }], match_key: 'External_Id__c' },
    responses: { '200': { data: [result(SF_ID)] } },
  },
  deleteRecords: {
    request: { data: { ids: [SF_ID, SF_ID_2] } },
    responses: { '200': WRITE_RESULTS, '202': { ...QUEUED_JOB, operation: 'delete', object: null } },
  },
  deleteObjectRecords: {
    params: { object_name: 'Account' },
    request: { data: { ids: [SF_ID, SF_ID_2] } },
    responses: { '200': WRITE_RESULTS, '202': { ...QUEUED_JOB, operation: 'delete' } },
  },
  getRecords: {
    params: { object_name: 'Account' },
    request: { data: { ids: [SEEDED_ID, SEEDED_ID_2], fields: ['Name', 'Industry'] } },
    responses: {
      '200': {
        data: [
          { ...account(SEEDED_ID), Id: SEEDED_ID, Name: 'Acme Corp', Industry: 'Agriculture' },
          { ...account(SEEDED_ID_2), Id: SEEDED_ID_2, Name: 'Umbrella Corp', Industry: 'Consulting' },
        ],
      },
    },
  },
  query: {
    request: { data: 'SELECT Id, Name FROM Account ORDER BY Name LIMIT 2' },
    responses: {
      '200': {
        data: {
          totalSize: 2,
          done: true,
          records: [
            { ...ACCOUNT, Id: SF_ID, Name: 'Acme' },
            { ...ACCOUNT, Id: SF_ID_2, Name: 'Globex' },
          ],
          next_cursor: null,
        },
      },
    },
  },
  searchRecords: {
    params: { object_name: 'contacts' },
    request: {
      data: {
        filterGroups: [{ filters: [{ propertyName: 'email', operator: 'EQ', value: 'ada@example.com' }] }],
        properties: ['email', 'firstname'],
        limit: 10,
      },
    },
    responses: {
      '200': {
        data: {
          totalSize: 1,
          done: true,
          records: [
            {
              id: '151',
              properties: { email: 'ada@example.com', firstname: 'Ada', hs_object_id: '151' },
              createdAt: '2026-03-01T08:00:00.000Z',
              updatedAt: '2026-03-01T08:00:00.000Z',
              archived: false,
            },
          ],
          next_cursor: null,
        },
      },
    },
  },
  readAuditLogs: {
    request: {
      data: {
        occurred_after: '2026-03-01T00:00:00Z',
        acting_user_ids: [1122334],
        order: 'newest_first',
        limit: 2,
      },
    },
    responses: {
      '200': {
        data: {
          records: [
            {
              id: '5400000012',
              category: 'PROPERTY_VALUE',
              subCategory: 'CONTACT',
              action: 'UPDATE',
              targetObjectId: '151',
              occurredAt: '2026-03-02T09:31:12.480Z',
              actingUser: { userId: 1122334, userEmail: 'ada.owner@example.com' },
            },
            {
              id: '5400000011',
              category: 'CRM_OBJECT',
              subCategory: 'CONTACT',
              action: 'CREATE',
              targetObjectId: '151',
              occurredAt: '2026-03-02T09:30:00.010Z',
              actingUser: { userId: 1122334, userEmail: 'ada.owner@example.com' },
            },
          ],
          done: false,
          next_cursor: 'eyJjIjoiY29ubl8…',
        },
      },
    },
  },
  describeInstance: {
    responses: {
      '200': {
        data: {
          encoding: 'UTF-8',
          maxBatchSize: 200,
          sobjects: [{ name: 'Account', label: 'Account', custom: false, queryable: true, createable: true }],
        },
      },
    },
  },
  describeObject: {
    params: { object_name: 'Account' },
    responses: {
      '200': {
        data: {
          name: 'Account',
          label: 'Account',
          fields: [
            { name: 'Id', type: 'id', label: 'Account ID', nillable: false },
            { name: 'Name', type: 'string', label: 'Account Name', length: 255, nillable: false },
          ],
        },
      },
    },
  },
  listCountries: {
    responses: {
      '200': {
        data: {
          source: 'org_picklists',
          countries: [
            {
              code: 'US',
              label: 'United States',
              active: true,
              visible: true,
              states: [{ code: 'CA', label: 'California', active: true, visible: true }],
            },
            { code: 'DE', label: 'Germany', active: true, visible: true, states: [] },
          ],
        },
      },
    },
  },
  addCustomField: {
    params: { object_name: 'Account' },
    request: { data: { name: 'Tier', label: 'Tier', type: 'Text', length: 40 } },
    responses: { '200': { data: { id: '00NXXXXXXXXXXXXAAA', success: true, errors: [] } } },
  },
  readAssociations: {
    params: { object_name: 'contacts' },
    request: { data: { ids: ['151'], to: 'companies' } },
    responses: {
      '200': {
        data: [
          {
            id: '151',
            to: [{ id: '301', types: [{ category: 'HUBSPOT_DEFINED', typeId: 1, label: 'Primary' }] }],
          },
        ],
      },
    },
  },
  associateRecords: {
    params: { object_name: 'contacts' },
    request: { data: [{ id: '151', to: 'companies', to_id: '301', label: 'Primary' }] },
    responses: { '200': { data: [{ id: '151', success: true, errors: [] }] } },
  },
  dissociateRecords: {
    params: { object_name: 'contacts' },
    request: { data: [{ id: '151', to: 'companies', to_id: '301' }] },
    responses: { '200': { data: [{ id: '151', success: true, errors: [] }] } },
  },
  listJobs: { responses: { '200': { data: [JOB], next_cursor: null } } },
  getJob: { params: { job_id: JOB_ID }, responses: { '200': JOB } },
  getJobResults: {
    params: { job_id: JOB_ID },
    responses: { '200': { data: WRITE_RESULTS.data, next_cursor: null } },
  },
  cancelJob: {
    params: { job_id: JOB_ID },
    responses: { '200': JOB, '202': { ...JOB, state: 'running', cancel_requested: true, finished_at: null } },
  },
  passThroughGet: {
    params: { target_url: 'services/data/v62.0/limits' },
    responses: { '200': { DailyApiRequests: { Max: 15000, Remaining: 14998 } } },
  },
  passThroughPost: {
    params: { target_url: 'services/data/v62.0/sobjects/Account' },
    request: { Name: 'Acme' },
    responses: { '200': { id: SF_ID, success: true, errors: [] } },
  },
  passThroughPut: {
    params: { target_url: 'crm/v3/objects/contacts/151/associations/companies/301/1' },
    responses: { '200': { id: '151' } },
  },
  passThroughPatch: {
    params: { target_url: `services/data/v62.0/sobjects/Account/${SF_ID}` },
    request: { Industry: 'Utilities' },
    responses: { '200': {} },
  },
  passThroughDelete: {
    params: { target_url: `services/data/v62.0/sobjects/Account/${SF_ID}` },
    responses: { '200': {} },
  },
  adminListConnections: { responses: { '200': { data: [CONNECTION] } } },
  adminGetConnection: { params: { id: CONNECTION.id }, responses: { '200': { data: CONNECTION } } },
  adminDeleteConnection: { params: { id: CONNECTION.id }, responses: {} },
  adminListTokens: { params: { id: CONNECTION.id }, responses: { '200': { data: [TOKEN] } } },
  adminCreateToken: {
    params: { id: CONNECTION.id },
    request: { name: 'billing-sync', expires_in_days: 90 },
    responses: {
      '201': {
        token: 'crmp_eu_…',
        data: { ...TOKEN, expiresAt: '2026-05-31T08:05:00.000Z', lastUsedAt: null },
      },
    },
  },
  adminRevokeToken: {
    params: { id: TOKEN.id },
    responses: { '200': { data: { ...TOKEN, revokedAt: '2026-03-02T10:00:00.000Z', state: 'revoked' } } },
  },
  adminListConnectLinks: { responses: { '200': { data: [LINK] } } },
  adminCreateConnectLink: {
    request: { provider: 'hubspot', label: 'Acme', ttl_hours: 24 },
    responses: {
      '201': {
        data: {
          id: LINK.id,
          url: 'https://eu.crm-proxy.example/connect/cl_Z2n7Kd4P.s3cr3t',
          expiresAt: LINK.expiresAt,
        },
      },
    },
  },
  adminRevokeConnectLink: { params: { id: LINK.id }, responses: {} },
  adminListRequests: {
    responses: {
      '200': {
        data: [
          {
            id: 'rl_9x2Kq',
            at: '2026-03-02T09:30:00.000Z',
            method: 'POST',
            path: '/v1/object/get/Account',
            status: 200,
            latencyMs: 41,
            crmCalls: 1,
            interface: null,
            requestId: EXAMPLE_REQUEST_ID,
            tokenId: TOKEN.id,
            connectionId: CONNECTION.id,
            errorCode: null,
          },
        ],
      },
    },
  },
  adminUsage: {
    responses: {
      '200': {
        data: [
          {
            connectionId: CONNECTION.id,
            hours: ['2026-03-02T08:00:00.000Z', '2026-03-02T09:00:00.000Z'],
            requests: [96, 120],
            errors: [0, 2],
          },
        ],
      },
    },
  },
};
