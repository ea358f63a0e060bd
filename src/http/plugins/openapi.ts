import { readFileSync } from 'node:fs';
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { JobSchema } from '../durable-doc.ts';
import type { RouteDoc } from '../route-doc.ts';
import { RecordResult } from '../schemas/common.ts';
import { ALWAYS, type ErrorExamples, errorComponents } from './openapi-errors.ts';
import { providerTexts, withProviderTexts } from './openapi-providers.ts';
import { ERRORS_KEY, type OperationExample, operationSchema, type RouteFacts } from './openapi-routes.ts';

export interface OpenApiInfo extends Omit<RouteFacts, 'examples'> {
  title: string;
  version: string;
  /** Configured public base URLs, listed after the instance that serves the document. */
  servers: Array<{ url: string; description: string }>;
  /** A proxy in front terminates TLS: the instance's own URL is `https://`. */
  behindTls: boolean;
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

interface Operation {
  operationId?: string;
  parameters?: Array<{ in: string; name: string; [key: string]: unknown }>;
  requestBody?: { content?: Media; [key: string]: unknown };
  responses?: Record<string, unknown>;
  [ERRORS_KEY]?: { errors: number[]; public: boolean };
}
type Document = { paths?: Record<string, Record<string, Operation>>; components?: Record<string, unknown> };

/**
 * @fastify/swagger builds the document from the routes' schemas and `config.doc`
 * (openapi-routes.ts); this registration adds what the plugin does not know: the shared error
 * model, one operationId per method of a route that serves several, the registered CRMs in the
 * texts that name them, and `GET /openapi.json` naming the instance that was asked first in
 * `servers`, so "try it" calls it.
 */
export function registerOpenApi(app: FastifyInstance, options: OpenApiInfo) {
  const info = { ...options, ...readExamples() };
  const texts = providerTexts(info.providers);
  app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: info.title,
        version: info.version,
        description:
          'JSON-over-HTTP access to {{crm.names}} records with one bearer token. Every request-level failure has the body `{"error": {"code", "message", "details"}, "request_id"}` and the request id in `X-Request-Id`.',
      },
      servers: info.servers,
      security: [{ bearerAuth: [] }],
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
        headers: {
          RequestId: {
            description: 'Id of this request, also in the error body.',
            schema: { type: 'string' },
          },
        },
      },
    },
    // Keep OpenAPI 3.1's `const` and the paths as the routes name them.
    convertConstToEnum: false,
    stripBasePath: false,
    transform: ({ route }) => operationSchema(route, info),
    // The plugin's types know no 3.1 document, which this is.
    transformObject: (documents) =>
      withProviderTexts(
        finish((documents as unknown as { openapiObject: Document }).openapiObject, info),
        texts,
      ) as never,
  });
  const document = () => (app as unknown as { swagger(): OpenApiDocument }).swagger();
  app.get('/openapi.json', { config: { doc: { hidden: true } as RouteDoc } }, async (request) =>
    withInstance(document(), request, info.behindTls),
  );
}

// The examples are data beside the docs (docs/examples/), read once when the app is built.
const EXAMPLES_DIR = new URL('../../../docs/examples/', import.meta.url);

function readExamples(): { examples: RouteFacts['examples']; errorExamples: ErrorExamples } {
  const read = (name: string) => JSON.parse(readFileSync(new URL(name, EXAMPLES_DIR), 'utf8'));
  const errors = read('errors.json') as { request_id: string; errors: ErrorExamples['errors'] };
  return {
    examples: read('operations.json'),
    errorExamples: { errors: errors.errors, requestId: errors.request_id },
  };
}

/** Error responses and shared schemas by reference, one operation per method, examples in place. */
function finish(doc: Document, info: RouteFacts & { errorExamples: ErrorExamples }): Document {
  const statuses = new Set<number>();
  for (const item of Object.values(doc.paths ?? {})) {
    delete item['head'];
    const entries = Object.entries(item);
    for (const [method, op] of entries) {
      const facts = op[ERRORS_KEY];
      if (facts === undefined) continue;
      const { [ERRORS_KEY]: _, ...rest } = op;
      // One route serving several methods still needs one operationId per method.
      const shared = entries.filter(([, other]) => other === op).length > 1;
      const operationId = shared
        ? `${op.operationId ?? ''}${method[0]?.toUpperCase()}${method.slice(1)}`
        : (op.operationId ?? '');
      const responses = withComponentRefs(rest.responses ?? {}) as Record<string, unknown>;
      for (const status of [...new Set([...facts.errors, ...ALWAYS])].sort()) {
        if (facts.public && (status === 401 || status === 403)) continue;
        responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
        statuses.add(status);
      }
      item[method] = withExamples({ ...rest, operationId, responses }, info.examples[operationId]);
    }
  }
  const errors = errorComponents(statuses, info.errorExamples);
  doc.components = {
    ...doc.components,
    schemas: { Error: errors.schema, ...Object.fromEntries(SHARED_SCHEMAS) },
    responses: errors.responses,
    examples: errors.examples,
  };
  return doc;
}

const JSON_TYPE = 'application/json';
type Media = Record<string, Record<string, unknown>>;

/** An operation with its example path values, request and answers (copies: methods share parts). */
function withExamples(op: Operation, example: OperationExample | undefined): Operation {
  if (example === undefined) return op;
  const media = (content: Media | undefined, value: unknown): Media | undefined =>
    content?.[JSON_TYPE] === undefined || value === undefined
      ? content
      : { ...content, [JSON_TYPE]: { ...content[JSON_TYPE], example: value } };
  const parameters = op.parameters?.map((p) => {
    const value = p.in === 'path' ? example.params?.[p.name] : undefined;
    return value === undefined ? p : { ...p, example: value };
  });
  const responses = Object.fromEntries(
    Object.entries(op.responses ?? {}).map(([status, r]) => {
      const response = r as { content?: Media };
      const content = media(response.content, example.responses[status]);
      return [status, content === undefined ? r : { ...response, content }];
    }),
  );
  const body = op.requestBody;
  return {
    ...op,
    ...(parameters === undefined ? {} : { parameters }),
    ...(body === undefined
      ? {}
      : { requestBody: { ...body, content: media(body.content, example.request) } }),
    responses,
  };
}

const SHARED_JSON = SHARED_SCHEMAS.map(([name, schema]) => [name, JSON.stringify(schema)] as const);

/** A copy of a value with every shared schema inside it replaced by its `$ref`. */
function withComponentRefs(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const json = JSON.stringify(value);
  const shared = SHARED_JSON.find(([, text]) => text === json);
  if (shared !== undefined) return { $ref: `#/components/schemas/${shared[0]}` };
  if (Array.isArray(value)) return value.map(withComponentRefs);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withComponentRefs(v)]));
}

// A host name, IPv4 or bracketed IPv6 address, and an optional port: nothing else is echoed back.
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/** The document with the instance that was asked first in `servers`, so "try it" calls it. */
export function withInstance(
  doc: OpenApiDocument,
  request: FastifyRequest,
  behindTls: boolean,
): OpenApiDocument {
  const host = request.headers.host;
  if (host === undefined || !HOST.test(host)) return doc;
  const https = behindTls || (request.raw.socket as { encrypted?: boolean }).encrypted === true;
  const own = `${https ? 'https' : 'http'}://${host}`;
  if (doc.servers.some((s) => s.url === own)) return doc;
  return { ...doc, servers: [{ url: own, description: 'This instance' }, ...doc.servers] };
}

/** The OpenAPI document of a built, ready app, as `GET /openapi.json` serves it (for tools that run no server). */
export function openApiDocumentOf(app: FastifyInstance): OpenApiDocument {
  return (app as unknown as { swagger(): OpenApiDocument }).swagger();
}
