import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';

/**
 * Validates the sandbox's real answers against HubSpot's own OpenAPI documents
 * (`test/fixtures/hubspot-openapi`, from HubSpot-public-api-spec-collection, see its README). Each
 * response schema is compiled from the document it belongs to, `$ref`s resolved inside it.
 *
 * Where the documents and recorded HubSpot answers disagree, the sandbox follows the recordings and
 * the test names the exception (`KNOWN`), so any other deviation still fails.
 */
const SPEC_DIR =
  process.env.HUBSPOT_OPENAPI_DIR ??
  fileURLToPath(new URL('../../fixtures/hubspot-openapi', import.meta.url));
const DOCS = [
  'crm-objects-v3.json',
  'crm-properties-v3.json',
  'crm-schemas-v3.json',
  'crm-owners-v3.json',
  'crm-pipelines-v3.json',
  'crm-associations-v4.json',
  'oauth-v1.json',
  'oauth-v3.json',
] as const;
export type Doc = (typeof DOCS)[number];

interface OpenApi {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
}

// ajv-formats is CommonJS with a `default` property; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  a: Ajv,
) => Ajv;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
// OpenAPI's numeric formats are not JSON Schema formats.
const int = (bits: number) => ({
  type: 'number' as const,
  validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** (bits - 1),
});
ajv.addFormat('int32', int(32));
ajv.addFormat('int64', int(64));
const docs = new Map<Doc, OpenApi>();
for (const name of DOCS) {
  const doc = JSON.parse(readFileSync(`${SPEC_DIR}/${name}`, 'utf8')) as OpenApi;
  docs.set(name, doc);
  ajv.addSchema(doc as object, name);
}

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Errors of `body` against the response schema of `method path → status` in `doc`. */
export function check(doc: Doc, method: string, path: string, status: number, body: unknown): ErrorObject[] {
  const op = docs.get(doc)?.paths[path]?.[method];
  assert.ok(op !== undefined, `${doc} has no ${method.toUpperCase()} ${path}`);
  const response = op.responses[String(status)];
  let ref: string;
  if (response?.content?.['application/json'] !== undefined) {
    ref = `${doc}#/${pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema')}`;
  } else {
    // Error answers: every operation's `default` is `#/components/responses/Error` → schema `Error`.
    assert.ok(op.responses.default !== undefined, `${doc} ${path} has no ${status} nor default response`);
    ref = `${doc}#/components/schemas/Error`;
  }
  const validate = ajv.compile({ $ref: ref });
  return validate(body) ? [] : [...(validate.errors ?? [])];
}

/**
 * Known disagreements between the documents and recorded answers (the sandbox follows the recordings):
 * - `properties` values are `type: string` in the spec; recorded searches answer `null` for a requested
 *   property that has no value.
 * - `StandardError` requires `errors` and `links`; recorded 207 answers carry neither.
 * - `Error` requires `category`; recorded 404s for unknown record ids and 429s other than search's carry none.
 * - `AssociationDefinition.createdAt`/`updatedAt` are strings in the spec; a recorded `GET /crm/v3/schemas/2-…`
 *   answers `null` for both.
 */
export const KNOWN = {
  nullPropertyValue: (e: ErrorObject) => /\/properties\/[^/]+$/.test(e.instancePath) && e.keyword === 'type',
  standardErrorDetails: (e: ErrorObject) =>
    /^\/errors\/\d+$/.test(e.instancePath) &&
    e.keyword === 'required' &&
    ['errors', 'links'].includes(String(e.params.missingProperty)),
  nullAssociationTimestamps: (e: ErrorObject) =>
    /\/associations\/\d+\/(createdAt|updatedAt)$/.test(e.instancePath) && e.keyword === 'type',
  noCategory: (e: ErrorObject) =>
    e.instancePath === '' && e.keyword === 'required' && e.params.missingProperty === 'category',
};

export function conforms(
  doc: Doc,
  method: string,
  path: string,
  status: number,
  body: unknown,
  allowed: ((e: ErrorObject) => boolean)[] = [],
): void {
  const errors = check(doc, method, path, status, body).filter((e) => !allowed.some((ok) => ok(e)));
  assert.deepEqual(
    errors.map((e) => `${e.instancePath} ${e.message}`),
    [],
    `${method.toUpperCase()} ${path} ${status} does not match ${doc}`,
  );
}

/**
 * The documented operation a request reached: the document and path template whose template
 * matches `path` (literal segments before parameters), with the statuses it documents; undefined
 * when none of the documents has it.
 */
export function operationFor(
  method: string,
  path: string,
): { doc: Doc; template: string; statuses: string[] } | undefined {
  let best: { doc: Doc; template: string; statuses: string[]; params: number } | undefined;
  for (const [doc, spec] of docs) {
    for (const [template, item] of Object.entries(spec.paths)) {
      const op = item[method];
      if (op === undefined) continue;
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
      if (!pattern.test(path)) continue;
      const params = (template.match(/\{/g) ?? []).length;
      if (best === undefined || params < best.params)
        best = { doc, template, statuses: Object.keys(op.responses), params };
    }
  }
  return best === undefined ? undefined : { doc: best.doc, template: best.template, statuses: best.statuses };
}

/** Errors of `body` against one component schema of `doc` (for operations the excerpts do not have). */
export function checkSchema(doc: Doc, schema: string, body: unknown): ErrorObject[] {
  const validate = ajv.compile({ $ref: `${doc}#/components/schemas/${schema}` });
  return validate(body) ? [] : [...(validate.errors ?? [])];
}
