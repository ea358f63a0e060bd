import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { OperationName } from '../../domain/operations.ts';
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../../errors/index.ts';
import { JobSchema } from '../durable-doc.ts';
import type { RouteDoc } from '../route-doc.ts';
import { ErrorResponse, RecordResult } from '../schemas/common.ts';

interface CollectedRoute {
  method: string;
  url: string;
  doc: RouteDoc;
  body?: unknown;
  params?: { properties?: Record<string, unknown> };
  query?: { properties?: Record<string, unknown> };
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed JSON, invalid body (every failing field is named), a limit exceeded (`too_many_records`, `too_many_ids`, `too_many_fields`, `field_name_too_long`, `query_too_long`), `invalid_value` (a field value of the wrong shape), `unknown_field` (with the closest real field), `invalid_query` (the CRM’s message), `invalid_cursor`, `invalid_field_definition`, `missing_match_value`, `target_not_allowed`, `invalid_path` (a malformed %-escape in the URL), `invalid_idempotency_key` (empty, over 255 characters or with control characters) or `malformed_request` (not valid HTTP/1.1; the connection is closed).',
  401: 'Missing, malformed or unknown API token.',
  403: 'Revoked or expired API token, or a token of the other region (`wrong_region`).',
  404: 'Unknown route or unknown object, or `job_not_found`: no job of this token has that id.',
  405: 'Wrong HTTP method for this path.',
  408: '`request_timeout`: the headers or the body did not arrive within the service’s time limits (the message names the limit); the connection is closed.',
  409: '`field_already_exists`: the CRM already has a field of that name; `idempotency_key_in_progress`: a request with the same `Idempotency-Key` is still running (retry after `Retry-After`; a job-backed one names its job in `details`); `idempotency_key_outcome_unknown`: the first request with the key was interrupted before its answer was stored (check the CRM, then use a new key); `job_not_finished`: the job has no results yet.',
  413: 'Request body too large.',
  415: 'The body is not JSON.',
  431: '`headers_too_large`: the request headers exceed the server’s limit.',
  422: "`idempotency_key_reused`: the `Idempotency-Key` was used with a different request. `operation_not_available`: the connection's CRM does not offer this operation (the message names what it offers), or `object_not_supported`: the object is announced but not supported yet.",
  429: "`rate_limited`: the service's own rate limit, or `crm_rate_limited`: the CRM's limit once the service's retries are spent; see `Retry-After`.",
  500: 'Internal failure; the body carries no internal detail.',
  502: "The CRM failed or could not be reached after retries; the CRM's own error is in `details`.",
  503: '`connection_needs_reauth`: the CRM no longer accepts the connection’s credentials.',
};

// Any route can answer these: token checks, method, rate limit, inbound time and header limits.
const ALWAYS = [401, 403, 405, 408, 429, 431, 500];

function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\*$/, '{target_url}');
}

/** Example request and answers of one operation. */
export interface OperationExample {
  /** Path parameter values. */
  params?: Record<string, string>;
  /** The JSON request body, for operations that take one. */
  request?: unknown;
  /** An answer per success status. */
  responses: Record<string, unknown>;
}

export interface OpenApiExamples {
  /** By operationId. */
  operations: Record<string, OperationExample>;
  /** One error body per code: its message and details. */
  errors: Record<ErrorCode, { message: string; details?: Array<Record<string, unknown>> }>;
  requestId: string;
}

export interface OpenApiInfo {
  examples: OpenApiExamples;
  title: string;
  version: string;
  /** Configured public base URLs, listed after the instance that serves the document. */
  servers: Array<{ url: string; description: string }>;
  /** A proxy in front terminates TLS: the instance's own URL is `https://`. */
  behindTls: boolean;
  /** The CRMs whose adapters offer an operation (their handler tables), by display name. */
  offeredBy(operation: OperationName): string[];
}

/** Collects every documented route as it is registered and serves the OpenAPI 3.1 document built from them. */
export function registerOpenApi(app: FastifyInstance, info: OpenApiInfo) {
  const routes: CollectedRoute[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const doc = route.config?.doc;
    if (doc === undefined || doc.hidden === true) return;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
    for (const method of methods) {
      // One route serving several methods still needs one operationId per method.
      const operationId =
        methods.length > 1
          ? `${doc.operationId}${method[0]}${method.slice(1).toLowerCase()}`
          : doc.operationId;
      routes.push({
        method: method.toLowerCase(),
        url: route.url,
        doc: { ...doc, operationId },
        body: route.schema?.body,
        params: route.schema?.params as CollectedRoute['params'],
        query: route.schema?.querystring as CollectedRoute['query'],
      });
    }
  });

  let cached: OpenApiDocument | undefined;
  const document = () => {
    cached ??= buildDocument(routes, info);
    return cached;
  };
  /** The document with the instance that was asked first in `servers`, so "try it" calls it. */
  const documentFor = (request: FastifyRequest): OpenApiDocument => {
    const own = instanceUrl(request, info.behindTls);
    const doc = document();
    if (own === undefined || doc.servers.some((s) => s.url === own)) return doc;
    return { ...doc, servers: [{ url: own, description: 'This instance' }, ...doc.servers] };
  };
  app.get('/openapi.json', { config: { doc: { hidden: true } as RouteDoc } }, async (request) =>
    documentFor(request),
  );
  documents.set(app, document);
  return { document, documentFor };
}

// A host name, IPv4 or bracketed IPv6 address, and an optional port: nothing else is echoed back.
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

function instanceUrl(request: FastifyRequest, behindTls: boolean): string | undefined {
  const host = request.headers.host;
  if (host === undefined || !HOST.test(host)) return undefined;
  const https = behindTls || (request.raw.socket as { encrypted?: boolean }).encrypted === true;
  return `${https ? 'https' : 'http'}://${host}`;
}

const documents = new WeakMap<FastifyInstance, () => OpenApiDocument>();

/** The OpenAPI document of a built app, as `GET /openapi.json` serves it (for tools that run no server). */
export function openApiDocumentOf(app: FastifyInstance): OpenApiDocument {
  const document = documents.get(app);
  if (document === undefined) throw new Error('this app has no OpenAPI document');
  return document();
}

/** The per-CRM note of an operation, from the same handler tables that decide 422 `operation_not_available`. */
function availability(info: OpenApiInfo, operation: OperationName | undefined): string {
  if (operation === undefined) return '';
  const crms = info.offeredBy(operation);
  return `**Offered on ${crms.length === 0 ? 'no' : crms.join(', ')} connections**; other connections answer 422 \`operation_not_available\`. `;
}

export interface OpenApiDocument {
  openapi: string;
  servers: Array<{ url: string; description?: string }>;
  paths: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

// Schemas shared by several operations, documented once under components.schemas and referenced.
const SHARED_SCHEMAS: Array<[name: string, schema: object]> = [
  ['Job', JobSchema],
  ['RecordResult', RecordResult],
];
const SHARED_JSON = SHARED_SCHEMAS.map(([name, schema]) => [name, JSON.stringify(schema)] as const);

/** A copy of a schema with every shared schema inside it replaced by its `$ref`. */
function withComponentRefs(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  const json = JSON.stringify(schema);
  const shared = SHARED_JSON.find(([, text]) => text === json);
  if (shared !== undefined) return { $ref: `#/components/schemas/${shared[0]}` };
  if (Array.isArray(schema)) return schema.map(withComponentRefs);
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, withComponentRefs(v)]));
}

/** The error model as components: the body schema, one example per code, one response per status. */
function errorComponents(statuses: Set<number>, samples: OpenApiExamples) {
  const examples: Record<string, unknown> = {};
  for (const code of ERROR_CODES) {
    const { message, details } = samples.errors[code];
    examples[code] = {
      summary: `${ERROR_STATUS[code]} ${code}`,
      value: { error: { code, message, details: details ?? [] }, request_id: samples.requestId },
    };
  }
  const responses: Record<string, unknown> = {};
  for (const status of [...statuses].sort()) {
    const codes = ERROR_CODES.filter((code) => ERROR_STATUS[code] === status);
    responses[`Error${status}`] = {
      description: ERROR_DESCRIPTIONS[status] ?? 'Error.',
      headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } },
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          examples: Object.fromEntries(
            codes.map((code) => [code, { $ref: `#/components/examples/${code}` }]),
          ),
        },
      },
    };
  }
  const error = ErrorResponse as unknown as { properties: { error: { properties: object } } };
  const schema = {
    ...error,
    properties: {
      ...error.properties,
      error: {
        ...error.properties.error,
        properties: {
          ...error.properties.error.properties,
          code: { type: 'string', enum: ERROR_CODES, description: 'Stable snake_case code.' },
        },
      },
    },
  };
  return { examples, responses, schema };
}

function buildDocument(routes: CollectedRoute[], info: OpenApiInfo): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const errorStatuses = new Set<number>();
  for (const route of routes) {
    const path = openApiPath(route.url);
    paths[path] ??= {};
    const item = paths[path];
    const parameters: Array<Record<string, unknown>> = Object.entries(route.params?.properties ?? {}).map(
      ([name, schema]) => ({ name, in: 'path', required: true, schema }),
    );
    for (const [name, schema] of Object.entries(route.query?.properties ?? {})) {
      if (route.doc.query?.some((p) => p.name === name)) continue;
      parameters.push({ name, in: 'query', required: false, schema });
    }
    for (const [place, list] of [
      ['query', route.doc.query],
      ['header', route.doc.headers],
    ] as const) {
      for (const p of list ?? []) {
        parameters.push({
          name: p.name,
          in: place,
          required: false,
          description: p.description,
          schema: p.schema,
        });
      }
    }
    if (route.url.endsWith('*')) {
      parameters.push({
        name: 'target_url',
        in: 'path',
        required: true,
        schema: {
          type: 'string',
          description: 'Full URL on the CRM’s own API, or a path starting with `/`.',
        },
      });
    }
    const examples = info.examples.operations[route.doc.operationId];
    for (const parameter of parameters) {
      const example = examples?.params?.[parameter['name'] as string];
      if (parameter['in'] === 'path' && example !== undefined) parameter['example'] = example;
    }
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(route.doc.responses)) {
      const example = examples?.responses[status];
      responses[status] = {
        description: r.description,
        ...(r.schema === undefined
          ? {}
          : {
              content: {
                'application/json': {
                  schema: withComponentRefs(r.schema),
                  ...(example === undefined ? {} : { example }),
                },
              },
            }),
      };
    }
    for (const status of [...new Set([...route.doc.errors, ...ALWAYS])].sort()) {
      if (route.doc.public === true && (status === 401 || status === 403)) continue;
      responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
      errorStatuses.add(status);
    }
    item[route.method] = {
      operationId: route.doc.operationId,
      summary: route.doc.summary,
      description: `${availability(info, route.doc.operation)}${route.doc.description}`,
      ...(route.doc.operation === undefined
        ? {}
        : { 'x-crm-providers': info.offeredBy(route.doc.operation) }),
      tags: route.doc.tags,
      ...(route.doc.public === true ? { security: [] } : {}),
      ...(route.doc.operatorKey === true ? { security: [{ operatorKey: [] }] } : {}),
      ...(parameters.length === 0 ? {} : { parameters }),
      ...(route.body === undefined
        ? {}
        : {
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: route.body,
                  ...(examples?.request === undefined ? {} : { example: examples.request }),
                },
              },
            },
          }),
      responses,
    };
  }
  const errors = errorComponents(errorStatuses, info.examples);
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description:
        'JSON-over-HTTP access to Salesforce and HubSpot records with one bearer token. Every request-level failure has the body `{"error": {"code", "message", "details"}, "request_id"}` and the request id in `X-Request-Id`.',
    },
    servers: info.servers,
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'API token `crmp_{region}_…`.' },
        operatorKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Operator API key `crmpk_…` (admin API only), created with `crm-proxy operators key create`.',
        },
      },
      schemas: {
        Error: errors.schema,
        ...Object.fromEntries(SHARED_SCHEMAS),
      },
      responses: errors.responses,
      examples: errors.examples,
      headers: {
        RequestId: { description: 'Id of this request, also in the error body.', schema: { type: 'string' } },
      },
    },
  };
}
