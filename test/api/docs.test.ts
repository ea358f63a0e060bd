import assert from 'node:assert/strict';
import http from 'node:http';
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

interface Media {
  schema: object;
  example?: unknown;
  examples?: Record<string, { $ref: string }>;
}

interface ExampleDoc {
  paths: Record<
    string,
    Record<
      string,
      {
        requestBody?: { content: Record<string, Media> };
        parameters?: Array<{ name: string; in: string; example?: unknown }>;
        responses: Record<
          string,
          {
            content?: Record<string, Media>;
          }
        >;
      }
    >
  >;
  components: {
    schemas: Record<string, object>;
    examples: Record<string, { value: { error: { code: string; message: string } } }>;
  };
}

/** The example a media object shows: its own, or the first of its named ones (under components). */
function exampleOf(doc: ExampleDoc, media: Media | undefined): unknown {
  if (media?.example !== undefined) return media.example;
  const ref = Object.values(media?.examples ?? {})[0]?.$ref;
  return ref === undefined ? undefined : doc.components.examples[ref.split('/').at(-1) ?? '']?.value;
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

test('the document names the instance asked first in servers, then the configured public URLs', async (t) => {
  const s = await startStack(t);
  const doc = await s.api<{ servers: Array<{ url: string; description: string }> }>('/openapi.json', {
    method: 'GET',
    token: null,
  });
  assert.deepEqual(
    doc.body.servers.map((x) => x.url),
    [s.baseUrl, 'https://eu.crm-proxy.test', 'https://us.crm-proxy.test'],
  );
  // A Host header that is not a host name is not echoed into the document.
  const forged = await getWithHost(`${s.baseUrl}/openapi.json`, 'evil.example/"><script>');
  assert.equal(forged.status, 200);
  assert.deepEqual(
    (JSON.parse(forged.body) as { servers: Array<{ url: string }> }).servers.map((x) => x.url),
    ['https://eu.crm-proxy.test', 'https://us.crm-proxy.test'],
  );
  const named = await getWithHost(`${s.baseUrl}/openapi.json`, 'api.example.com:8443');
  assert.equal(
    (JSON.parse(named.body) as { servers: Array<{ url: string }> }).servers[0]?.url,
    'http://api.example.com:8443',
  );
});

/** GET with a Host header of our choosing (fetch does not let a caller set it). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { host } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
}

test('every operation has an example request and answer, and every error code an example', async (t) => {
  const s = await startStack(t);
  const doc = (await s.api<ExampleDoc>('/openapi.json', { method: 'GET', token: null })).body;
  const missing: string[] = [];
  const codes = new Set<string>();
  const ajv = new Ajv2020({ strict: false });
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const name = `${method} ${path}`;
      const body = op.requestBody?.content['application/json'];
      if (body !== undefined) {
        const example = exampleOf(doc, body);
        if (example === undefined) missing.push(`${name}: request example`);
        // The example is a request the documented schema accepts.
        else if (!ajv.validate(body.schema, example)) missing.push(`${name}: request example is invalid`);
      }
      for (const param of op.parameters ?? []) {
        if (param.in === 'path' && param.example === undefined)
          missing.push(`${name}: ${param.name} example`);
      }
      for (const [status, response] of Object.entries(op.responses)) {
        const content = response.content?.['application/json'];
        if (content === undefined) continue;
        if (Number(status) < 400) {
          if (exampleOf(doc, content) === undefined) missing.push(`${name}: ${status} example`);
          continue;
        }
        // Error answers: the shared error body, with the examples of the codes of their status.
        const examples = Object.values(content.examples ?? {});
        if (examples.length === 0) missing.push(`${name}: ${status} examples`);
        for (const ref of examples) {
          const example = doc.components.examples[ref.$ref.split('/').at(-1) ?? ''];
          if (example === undefined) missing.push(`${name}: ${status} ${ref.$ref}`);
          else codes.add(example.value.error.code);
        }
      }
    }
  }
  assert.deepEqual(missing, []);
  // One example per error code, each in the error shape the Error schema describes.
  const allCodes = (
    doc.components.schemas['Error'] as { properties: { error: { properties: { code: { enum: string[] } } } } }
  ).properties.error.properties.code.enum;
  const errorExamples = Object.entries(doc.components.examples).filter(([name]) => allCodes.includes(name));
  for (const [code, example] of errorExamples) {
    assert.equal(example.value.error.code, code);
    assert.equal(typeof example.value.error.message, 'string');
    assert.ok(ajv.validate(doc.components.schemas['Error'] ?? {}, example.value), code);
  }
  // The error answers show codes of the closed list, and some answer shows each code of it.
  assert.deepEqual(
    [...codes].filter((c) => !allCodes.includes(c)),
    [],
  );
  assert.deepEqual(
    allCodes.filter((c) => !codes.has(c)),
    [],
  );
  assert.equal(errorExamples.length, allCodes.length, 'one example per error code');
});

test('GET /docs serves the API reference from the installed Swagger UI (@fastify/swagger-ui), with no other origin allowed', async (t) => {
  const s = await startStack(t);
  const answer = await s.api<string>('/docs', { method: 'GET', token: null });
  assert.equal(answer.status, 200);
  assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
  const csp = answer.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.match(csp, /connect-src 'self'(;|$)/);
  // Every script and stylesheet is one of the service's own.
  const refs = [...answer.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
  assert.ok(refs.length >= 4);
  for (const ref of refs) {
    assert.match(ref, /^\/docs\/static\//, ref);
    const asset = await s.api<string>(ref, { method: 'GET', token: null });
    assert.equal(asset.status, 200, ref);
  }
  const bundle = await s.api<string>('/docs/static/swagger-ui-bundle.js', { method: 'GET', token: null });
  assert.match(bundle.headers.get('content-type') ?? '', /javascript/);
  assert.ok(bundle.text.includes('SwaggerUIBundle'));
  const init = await s.api<string>('/docs/static/swagger-initializer.js', { method: 'GET', token: null });
  assert.match(init.text, /validatorUrl: null/, 'no call to an online validator');
  const unknown = await s.api<{ error: { code: string } }>('/docs/static/..%2F..%2Fpackage.json', {
    method: 'GET',
    token: null,
  });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'not_found');
});

test('healthz and readyz answer without a token', async (t) => {
  const s = await startStack(t);
  const health = await s.api<{ status: string }>('/healthz', { method: 'GET', token: null });
  assert.deepEqual([health.status, health.body.status], [200, 'ok']);
  const ready = await s.api<{ status: string }>('/readyz', { method: 'GET', token: null });
  assert.deepEqual([ready.status, ready.body.status], [200, 'ready']);
});

test("the reference's get example names seeded records: try it answers them, not nulls", async (t) => {
  const s = await startStack(t);
  const doc = (await (await fetch(`${s.baseUrl}/openapi.json`)).json()) as ExampleDoc;
  const get = doc.paths['/v1/object/get/{object_name}']?.['post'];
  const example = exampleOf(doc, get?.requestBody?.content['application/json']);
  const objectName = get?.parameters?.find((p) => p.name === 'object_name')?.example;
  assert.equal(objectName, 'Account');
  const answer = await s.api<{ data: Array<Record<string, unknown> | null> }>('/v1/object/get/Account', {
    body: example,
  });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.data.length, 2);
  for (const record of answer.body.data) assert.equal(typeof record?.['Name'], 'string');
});
