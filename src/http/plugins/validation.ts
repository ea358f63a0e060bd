import type { FastifySchemaValidationError } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import { INSTANT_PATTERN } from '../schemas/bodies.ts';

const MAX_DETAILS = 50;

/** Patterns whose accepted forms are said in words rather than as the regular expression. */
const PATTERN_FORMS: Record<string, string> = {
  [INSTANT_PATTERN]:
    'must be an ISO 8601 date or date-time, such as 2026-03-01, 2026-03-01T09:30:00Z or 2026-03-01T09:30:00+01:00 (words such as "yesterday" are not accepted)',
};

/** A fix hint per JSON-Schema keyword, from the error's params, for a value at the error's path. */
const HINTS: Record<string, (params: Record<string, unknown>) => string> = {
  type: (p) => `must be of type ${String(p['type'])}`,
  minItems: (p) => `must hold at least ${String(p['limit'])} item(s)`,
  maxItems: (p) => `must hold at most ${String(p['limit'])} item(s)`,
  minLength: (p) =>
    Number(p['limit']) <= 1 ? 'must not be empty' : `must be at least ${String(p['limit'])} characters long`,
  maxLength: (p) => `must be at most ${String(p['limit'])} characters long`,
  pattern: (p) => PATTERN_FORMS[String(p['pattern'])] ?? `must match ${String(p['pattern'])}`,
};

/** The path and fix hint of one validation error, so the message says how to repair the request. */
export function describe(error: FastifySchemaValidationError): { path: string; message: string } {
  const base = error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required')
    return { path: `${base}/${String(params['missingProperty'])}`, message: 'is required' };
  if (error.keyword === 'additionalProperties') {
    return {
      // The name is the client's own and may be huge: the path shows its start.
      path: `${base}/${String(params['additionalProperty']).slice(0, 100)}`,
      message: 'is not a known property; remove it',
    };
  }
  const hint = Object.hasOwn(HINTS, error.keyword) ? HINTS[error.keyword] : undefined;
  return { path: base || '/', message: hint?.(params) ?? error.message ?? 'is invalid' };
}

/** Paths whose `maxItems` is a request limit: reported as too_many_records / too_many_ids. */
const LIMIT_PATHS: Record<string, 'too_many_records' | 'too_many_ids'> = {
  '/data': 'too_many_records',
  '/data/ids': 'too_many_ids',
};

/** One ApiError naming every failing field; a breached record/id limit gets its own code, to split by. */
export function validationError(errors: FastifySchemaValidationError[], context: string): ApiError {
  if (context === 'params') {
    return new ApiError(
      'invalid_object_name',
      'The object name in the path is not a valid API name. Use a name such as Account, Invoice__c, contacts or 0-1.',
      {
        details: errors
          .slice(0, MAX_DETAILS)
          .map((e) => ({ path: `/object_name`, message: e.message ?? 'is invalid' })),
      },
    );
  }
  const seen = new Set<string>();
  const details: Array<{ path: string; message: string }> = [];
  let limitCode: 'too_many_records' | 'too_many_ids' | undefined;
  let limit: number | undefined;
  // Past MAX_DETAILS only limits are looked for: describing 100,000 errors would block the event loop.
  let more = 0;
  for (const error of errors) {
    // `anyOf`/`allOf` wrappers repeat what their branches already said.
    if (error.keyword === 'anyOf' || error.keyword === 'allOf' || error.keyword === 'if') continue;
    if (error.keyword === 'maxItems' && Object.hasOwn(LIMIT_PATHS, error.instancePath)) {
      limitCode = LIMIT_PATHS[error.instancePath];
      limit = Number((error.params as Record<string, unknown>)['limit']);
      continue;
    }
    if (details.length >= MAX_DETAILS) {
      more += 1;
      continue;
    }
    const d = describe(error);
    const key = `${d.path} ${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push(d);
  }
  if (limitCode !== undefined && limit !== undefined) {
    const noun = limitCode === 'too_many_ids' ? 'ids' : 'records';
    return new ApiError(
      limitCode,
      limit === 1
        ? `This operation takes exactly one record per request. Send one record in data.`
        : `At most ${limit} ${noun} per request. Split the request into batches of ${limit} or fewer.`,
      { details: [{ path: limitCode === 'too_many_ids' ? '/data/ids' : '/data', limit }, ...details] },
    );
  }
  const summary = details.map((d) => `${d.path} ${d.message}`).join('; ');
  return new ApiError(
    'invalid_body',
    `The request body is invalid: ${summary}${more > 0 ? `; and ${more} more` : ''}.`,
    { details: more > 0 ? [...details, { path: '', message: `${more} more error(s) not shown` }] : details },
  );
}
