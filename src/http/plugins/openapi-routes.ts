import type { RouteOptions } from 'fastify';
import type { OperationName } from '../../domain/operations.ts';
import type { ProviderProfile } from '../../providers/adapter.ts';
import type { ParamDoc, RouteDoc } from '../route-doc.ts';

// One route's OpenAPI operation, as @fastify/swagger's `transform`: the route's `config.doc`
// becomes the schema keywords the plugin turns into parameters, a request body and responses. The
// route's own schema is not touched: validation stays what it was. Examples are added to the
// finished document (openapi.ts): the plugin would read an example's own keys as schema keywords.

/** Example request and answers of one operation. */
export interface OperationExample {
  /** Path parameter values. */
  params?: Record<string, string>;
  /** The JSON request body, for operations that take one. */
  request?: unknown;
  /** An answer per success status. */
  responses: Record<string, unknown>;
}

export interface RouteFacts {
  /** Examples by operationId. */
  examples: Record<string, OperationExample>;
  /** The CRMs whose adapters offer an operation (their handler tables), by display name. */
  offeredBy(operation: OperationName): string[];
  /** The registered CRMs' profiles, in registry order: their notes fill `{{crm.…}}` placeholders. */
  providers: readonly ProviderProfile[];
}

/** Where the plugin finds a route's error statuses; the document step turns it into `$ref`s. */
export const ERRORS_KEY = 'x-crm-proxy-errors';

type Schema = Record<string, unknown>;
type Properties = Record<string, Schema>;

/** The per-CRM note of an operation, from the same handler tables that decide 422 `operation_not_available`. */
function availability(facts: RouteFacts, operation: OperationName | undefined): string {
  if (operation === undefined) return '';
  const crms = facts.offeredBy(operation);
  return `**Offered on ${crms.length === 0 ? 'no' : crms.join(', ')} connections**; other connections answer 422 \`operation_not_available\`. `;
}

const NOTES = / ?\{\{crm\.notes\}\}/;

/** The route's description with the notes of the CRMs that offer its operation where it says `{{crm.notes}}`. */
function described(doc: RouteDoc, facts: RouteFacts): string {
  const text = `${availability(facts, doc.operation)}${doc.description}`;
  if (!NOTES.test(text)) return text;
  const offering = new Set(doc.operation === undefined ? [] : facts.offeredBy(doc.operation));
  const notes = facts.providers.flatMap((p) => {
    const note = p.doc.routes?.[doc.operationId];
    return note === undefined || !offering.has(p.displayName) ? [] : [` ${p.displayName}: ${note}`];
  });
  return text.replace(NOTES, notes.join(''));
}

const propertiesOf = (schema: unknown): Properties =>
  ((schema as { properties?: Properties } | undefined)?.properties ?? {}) as Properties;

const asParams = (list: readonly ParamDoc[] | undefined): Properties =>
  Object.fromEntries((list ?? []).map((p) => [p.name, { ...p.schema, description: p.description }]));

const object = (properties: Properties, required?: string[]): Schema | undefined =>
  Object.keys(properties).length === 0
    ? undefined
    : { type: 'object', properties, ...(required === undefined ? {} : { required }) };

/** Path parameters; a trailing `*` is the proxy's `target_url`. */
function pathParams(route: RouteOptions): Schema | undefined {
  const properties: Properties = { ...propertiesOf(route.schema?.params) };
  if (route.url.endsWith('*')) {
    properties['target_url'] = {
      type: 'string',
      description: 'Full URL on the CRM’s own API, or a path starting with `/`.',
    };
  }
  return object(properties, Object.keys(properties));
}

// The plugin takes a response's description from this keyword, and no content for `type: 'null'`.
const responses = (doc: RouteDoc): Record<string, Schema> =>
  Object.fromEntries(
    Object.entries(doc.responses).map(([status, r]) => [
      status,
      { ...(r.schema ?? { type: 'null' }), 'x-response-description': r.description },
    ]),
  );

/** The schema @fastify/swagger documents for `route`: hidden unless the route carries a `doc`. */
export function operationSchema(route: RouteOptions, facts: RouteFacts): { schema: Schema; url: string } {
  const url = route.url.replace(/\*$/, ':target_url');
  const doc = route.config?.doc;
  if (doc === undefined || doc.hidden === true) return { schema: { hide: true }, url };
  const own = route.schema ?? {};
  const body = own.body as Schema | undefined;
  const query = object({ ...propertiesOf(own.querystring), ...asParams(doc.query) });
  const headers = object(asParams(doc.headers));
  const params = pathParams(route);
  const schema: Schema = {
    operationId: doc.operationId,
    summary: doc.summary,
    description: described(doc, facts),
    tags: doc.tags,
    ...(doc.operation === undefined ? {} : { 'x-crm-providers': facts.offeredBy(doc.operation) }),
    ...(doc.public === true ? { security: [] } : {}),
    ...(doc.operatorKey === true ? { security: [{ operatorKey: [] }] } : {}),
    [ERRORS_KEY]: { errors: doc.errors, public: doc.public === true },
    ...(params === undefined ? {} : { params }),
    ...(query === undefined ? {} : { querystring: query }),
    ...(headers === undefined ? {} : { headers }),
    ...(body === undefined ? {} : { body }),
    response: responses(doc),
  };
  return { schema, url };
}
