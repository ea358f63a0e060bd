import type { JsonSchema } from './schema-arbitrary.ts';

/** One route to fuzz, as the service's own OpenAPI document describes it. */
export interface FuzzRoute {
  method: string;
  /** OpenAPI path, `{param}` placeholders included. */
  template: string;
  params: Record<string, JsonSchema>;
  body?: JsonSchema;
  passThrough: boolean;
  /** No token needed (health, the document itself, the docs page). */
  public: boolean;
}

interface OpenApiOperation {
  parameters?: Array<{ name: string; in: string; schema: JsonSchema }>;
  requestBody?: { content?: { 'application/json'?: { schema?: JsonSchema } } };
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

/** The routes the document lists, plus the undocumented public ones every deployment serves. */
export function routesFromOpenApi(document: OpenApiDocument): FuzzRoute[] {
  const routes: FuzzRoute[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const params: Record<string, JsonSchema> = {};
      for (const p of operation.parameters ?? []) if (p.in === 'path') params[p.name] = p.schema;
      const body = operation.requestBody?.content?.['application/json']?.schema;
      routes.push({
        method: method.toUpperCase(),
        template,
        params,
        ...(body === undefined ? {} : { body }),
        passThrough: template.includes('{target_url}'),
        public: false,
      });
    }
  }
  for (const template of ['/healthz', '/readyz', '/openapi.json', '/docs']) {
    routes.push({ method: 'GET', template, params: {}, passThrough: false, public: true });
  }
  return routes;
}
