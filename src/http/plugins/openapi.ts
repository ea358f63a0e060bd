import { readFileSync } from 'node:fs';
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { OperationName } from '../../domain/operations.ts';
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../../errors/index.ts';
import type { CrmAdapter } from '../../providers/adapter.ts';
import { ERROR_DESCRIPTIONS } from '../schemas/answers.ts';

declare module 'fastify' {
  interface FastifySchema {
    /** The API operation the route runs: the document names the CRMs whose adapters offer it. */
    'x-crm-operation'?: OperationName;
  }
}

interface OpenApiOptions {
  /** Configured public base URLs, listed after the instance that serves the document. */
  servers: Array<{ url: string; description: string }>;
  /** A proxy in front terminates TLS: the instance's own URL is `https://`. */
  behindTls: boolean;
  /** The registered CRMs: which offer each operation, and their notes on it. */
  adapters: readonly CrmAdapter[];
}

type WithServers = { servers: Array<{ url: string; description?: string }> };

/** An operation's examples (docs/examples/operations.json, by operationId). */
interface OperationExample {
  params?: Record<string, string>;
  request?: unknown;
  responses: Record<string, unknown>;
}

const EXAMPLES_DIR = new URL('../../../docs/examples/', import.meta.url);
const readExample = (name: string): unknown => JSON.parse(readFileSync(new URL(name, EXAMPLES_DIR), 'utf8'));

/**
 * `components.examples`: an error body per error code, and each operation's as `<operationId>.request`
 * and `<operationId>.<status>`, referred to: inline, their keys would read as schema keywords.
 */
function componentExamples(examples: Record<string, OperationExample>): Record<string, unknown> {
  const { request_id, errors } = readExample('errors.json') as {
    request_id: string;
    errors: Record<ErrorCode, { message: string; details?: unknown[] }>;
  };
  return Object.fromEntries([
    ...ERROR_CODES.map((code) => [
      code,
      {
        summary: `${ERROR_STATUS[code]} ${code}`,
        value: {
          error: { code, message: errors[code].message, details: errors[code].details ?? [] },
          request_id,
        },
      },
    ]),
    ...Object.entries(examples).flatMap(([operationId, example]) => [
      ...(example.request === undefined
        ? []
        : [[`${operationId}.request`, { summary: 'Request', value: example.request }]]),
      ...Object.entries(example.responses).map(([status, value]) => [
        `${operationId}.${status}`,
        { summary: `${status} answer`, value },
      ]),
    ]),
  ]);
}

const exampleRef = (name: string) => ({
  [name.split('.').at(-1) ?? name]: { $ref: `#/components/examples/${name}` },
});

/** "a", "a and b", "a, b and c" (Intl.ListFormat would load ICU data, about 6 MiB, at every start). */
const joined = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/**
 * `GET /openapi.json`, from the routes' schemas (routes without an `operationId` are hidden), plus
 * the examples of docs/examples/ and, per operation, the CRMs that offer it and their notes.
 */
export const openApi = fp(
  async (app: FastifyInstance, options: OpenApiOptions) => {
    const examples = readExample('operations.json') as Record<string, OperationExample>;
    const names = joined(options.adapters.map((a) => a.profile.displayName));
    app.register(fastifySwagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'crm-proxy',
          version: '1',
          description: [
            `JSON-over-HTTP access to ${names} records with one bearer token. Every request-level failure has the body \`{"error": {"code", "message", "details"}, "request_id"}\` and the request id in \`X-Request-Id\`.`,
            '',
            'Errors by status:',
            ...Object.entries(ERROR_DESCRIPTIONS).map(([status, text]) => `- **${status}**: ${text}`),
          ].join('\n'),
        },
        servers: options.servers,
        security: [{ bearerAuth: [] }],
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', description: 'API token `crmp_{region}_…`.' },
            operatorKey: {
              type: 'http',
              scheme: 'bearer',
              description:
                'Operator API key `crmpk_…` (admin API only), created with `./bin/crm-proxy.mjs operators key create`.',
            },
          },
          examples: componentExamples(examples) as never,
        },
      },
      // Shared schemas (schemas/answers.ts) are components named by their `$id`.
      refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json['$id'] ?? `def-${i}`) },
      // Keep OpenAPI 3.1's `const` and the paths as the routes name them.
      convertConstToEnum: false,
      stripBasePath: false,
      transform: ({ schema, url }) => documented(schema as Schema | undefined, url, examples, options),
    });
    const document = () => (app as unknown as { swagger(): WithServers }).swagger();
    app.get('/openapi.json', async (request) => withInstance(document(), request, options.behindTls));
  },
  { name: 'openapi' },
);

type Schema = Record<string, unknown>;

/** What @fastify/swagger documents for a route: its schema, with examples and the CRMs' facts. */
function documented(
  schema: Schema | undefined,
  url: string,
  examples: Record<string, OperationExample>,
  options: OpenApiOptions,
): { schema: Schema; url: string } {
  // The pass-through's wildcard is its `target_url`.
  const path = url.replace(/\*$/, ':target_url');
  const operationId = schema?.['operationId'] as string | undefined;
  if (schema === undefined || operationId === undefined) return { schema: { hide: true }, url: path };
  const { 'x-crm-operation': operation, ...own } = schema;
  const example = examples[operationId];
  let description = String(own['description'] ?? '');
  if (operation !== undefined) {
    const offering = options.adapters.filter((a) => a.handlers[operation as OperationName] !== undefined);
    const crms = offering.map((a) => a.profile.displayName);
    const notes = offering.flatMap(({ profile }) => {
      const note = profile.doc.routes?.[operationId];
      return note === undefined ? [] : [`${profile.displayName}: ${note}`];
    });
    description = [
      `**Offered on ${crms.length === 0 ? 'no' : crms.join(', ')} connections**; other connections answer 422 \`operation_not_available\`.`,
      description,
      ...notes,
    ]
      .filter((part) => part !== '')
      .join(' ');
    own['x-crm-providers'] = crms;
  }
  const params = url.endsWith('*')
    ? {
        type: 'object',
        required: ['target_url'],
        properties: {
          target_url: {
            type: 'string',
            description: 'Full URL on the CRM’s own API, or a path starting with `/`.',
          },
        },
      }
    : (own['params'] as Schema | undefined);
  return {
    url: path,
    schema: {
      ...own,
      description,
      ...(params === undefined ? {} : { params: withParamExamples(params, example?.params) }),
      ...(own['body'] === undefined || example?.request === undefined
        ? {}
        : { body: { ...(own['body'] as Schema), 'x-examples': exampleRef(`${operationId}.request`) } }),
      response: Object.fromEntries(
        Object.entries((own['response'] ?? {}) as Record<string, Schema>).map(([status, answer]) => [
          status,
          example?.responses[status] === undefined
            ? answer
            : withAnswerExample(answer, `${operationId}.${status}`),
        ]),
      ),
    },
  };
}

function withParamExamples(params: Schema, values: Record<string, string> | undefined): Schema {
  if (values === undefined) return params;
  const properties = (params['properties'] ?? {}) as Record<string, Schema>;
  return {
    ...params,
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, p]) => [
        name,
        values[name] === undefined ? p : { ...p, examples: [values[name]] },
      ]),
    ),
  };
}

/** A success answer with its example, as a media object (a `$ref` schema keeps no sibling keys). */
function withAnswerExample(answer: Schema, name: string): Schema {
  if (answer['content'] !== undefined) return answer;
  const { description, ...schema } = answer;
  return { description, content: { 'application/json': { schema, examples: exampleRef(name) } } };
}

// A host name, IPv4 or bracketed IPv6 address, and an optional port: nothing else is echoed back.
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/** The document with the instance that was asked first in `servers`, so "try it" calls it. */
export function withInstance<D extends WithServers>(doc: D, request: FastifyRequest, behindTls: boolean): D {
  const host = request.headers.host;
  if (host === undefined || !HOST.test(host)) return doc;
  const https = behindTls || (request.raw.socket as { encrypted?: boolean }).encrypted === true;
  const own = `${https ? 'https' : 'http'}://${host}`;
  if (doc.servers.some((s) => s.url === own)) return doc;
  return { ...doc, servers: [{ url: own, description: 'This instance' }, ...doc.servers] };
}
