import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startStack } from '../helpers/stack.ts';

interface OpenApi {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        requestBody?: { content: Record<string, { schema: object }> };
        responses: Record<string, unknown>;
      }
    >
  >;
  components: { schemas: Record<string, object> };
}

const SPEC_ROUTES = [
  'post /v1/object/insert/{object_name}',
  'post /v1/object/upsert/{object_name}',
  'post /v1/object/update/{object_name}',
  'post /v1/object/delete',
  'post /v1/object/get/{object_name}',
  'post /v1/object/soql',
  'post /v1/describe',
  'post /v1/describe/{object_name}',
  'post /v1/object/add_custom_field/{object_name}',
  'get /v1/proxy/{target_url}',
  'post /v1/proxy/{target_url}',
  'put /v1/proxy/{target_url}',
  'patch /v1/proxy/{target_url}',
  'delete /v1/proxy/{target_url}',
];

test('GET /openapi.json documents every route of the API, generated from the route schemas', async (t) => {
  const s = await startStack(t);
  const answer = await s.api<OpenApi>('/openapi.json', { method: 'GET', token: null });
  assert.equal(answer.status, 200);
  const doc = answer.body;
  assert.equal(doc.openapi, '3.1.0');
  const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((m) => `${m} ${path}`),
  );
  for (const route of SPEC_ROUTES) assert.ok(documented.includes(route), `${route} is documented`);
  const ajv = new Ajv2020({ strict: false });
  const ids = new Set<string>();
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      assert.ok(!ids.has(op.operationId));
      ids.add(op.operationId);
      assert.ok(op.responses['401'] && op.responses['500']);
      const schema = op.requestBody?.content['application/json']?.schema;
      if (schema !== undefined) ajv.compile(schema);
    }
  }
  // The documented get schema is the one the service enforces.
  const getSchema =
    doc.paths['/v1/object/get/{object_name}']?.['post']?.requestBody?.content['application/json']?.schema;
  assert.ok(getSchema);
  const validate = ajv.compile(getSchema);
  assert.equal(validate({ data: { ids: ['001000000000000AAA'], fields: ['Name'] } }), true);
  assert.equal(validate({ data: { ids: [] } }), false);
});

test('GET /docs is a self-contained HTML page rendered from the document', async (t) => {
  const s = await startStack(t);
  const answer = await s.api<string>('/docs', { method: 'GET', token: null });
  assert.equal(answer.status, 200);
  assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(answer.text, /<!doctype html>/);
  // Self-contained: nothing is loaded from elsewhere (no scripts, stylesheets, images or CSS imports).
  assert.doesNotMatch(answer.text, /<script|<link|<img|\ssrc=|@import|url\(/i);
  for (const path of ['/v1/object/get/{object_name}', '/v1/describe', '/v1/proxy/{target_url}']) {
    assert.ok(answer.text.includes(path), path);
  }
});

test('healthz and readyz answer without a token', async (t) => {
  const s = await startStack(t);
  const health = await s.api<{ status: string }>('/healthz', { method: 'GET', token: null });
  assert.deepEqual([health.status, health.body.status], [200, 'ok']);
  const ready = await s.api<{ status: string }>('/readyz', { method: 'GET', token: null });
  assert.deepEqual([ready.status, ready.body.status], [200, 'ready']);
});
