import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type SalesforceContext, SUBREQUEST_HEADER, SUBREQUEST_SECRET } from '../context.ts';
import type { OrgSnapshot } from '../org/index.ts';
import { type ApiError, isRecord, sendErrors, sendJson, versionOf } from './common.ts';
import { userOf } from './sobjects.ts';

/**
 * Composite resources. Subrequests run through the app itself (`inject`), so each is answered by
 * the very route a direct call reaches; `allOrNone` and graphs roll the org back to a snapshot.
 * Limits as documented: 25 subrequests per `/composite` (at most 5 of them queries or sObject
 * Collections) and per `/composite/batch`, 200 records per tree, 500 nodes per graph.
 */
const MAX_SUBREQUESTS = 25;
const MAX_QUERY_OR_COLLECTION = 5;
const MAX_TREE_RECORDS = 200;
const MAX_TREE_DEPTH = 5;
const MAX_GRAPH_NODES = 500;
const MAX_GRAPHS = 75;
const METHODS = new Set(['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD']);
const REFERENCE_ID = /^[A-Za-z][A-Za-z0-9_]*$/;

const HALTED: ApiError = {
  errorCode: 'PROCESSING_HALTED',
  message: 'The transaction was rolled back since another operation in the same transaction failed.',
};

interface SubResponse {
  body: unknown;
  httpHeaders: Record<string, string>;
  httpStatusCode: number;
  referenceId: string;
}

const invalid = (reply: FastifyReply, message: string, code = 'INVALID_INPUT') =>
  sendErrors(reply, 400, [{ errorCode: code, message }]);

/** Value at `ref.path` in an earlier answer: `id`, `records[0].Id`, `compositeResponse[1].body.id`. */
function lookupPath(body: unknown, path: string): unknown {
  let node: unknown = body;
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

type Resolved = { ok: true; value: unknown } | { ok: false; error: ApiError };

/** Replaces every `@{ref.path}` in strings of `value` with the referenced answer's value. */
function resolveRefs(value: unknown, done: Map<string, SubResponse>, urlEncode: boolean): Resolved {
  let failure: ApiError | null = null;
  const sub = (s: string): unknown => {
    const whole = /^@\{([^}]+)\}$/.exec(s);
    const replace = (expr: string): unknown => {
      const [ref, ...rest] = expr.split('.');
      const answer = done.get(ref ?? '');
      const v =
        answer === undefined || answer.httpStatusCode >= 400
          ? undefined
          : lookupPath(answer.body, rest.join('.'));
      if (v === undefined) {
        failure ??= {
          errorCode: 'PROCESSING_HALTED',
          message: `Invalid reference specified. No value for ${expr} found in ${ref}. Provided referenceId ('${ref}') must be a previous subrequest's and its path must exist in its answer.`,
        };
        return '';
      }
      return v;
    };
    // A string that is only a reference takes the value's own type (a number stays a number in a body).
    if (whole !== null && !urlEncode) return replace(whole[1] as string);
    return s.replace(/@\{([^}]+)\}/g, (_m, expr: string) => {
      const v = replace(expr);
      const text = typeof v === 'string' ? v : JSON.stringify(v);
      return urlEncode ? encodeURIComponent(text) : text;
    });
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return sub(v);
    if (Array.isArray(v)) return v.map(walk);
    if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const out = walk(value);
  return failure === null ? { ok: true, value: out } : { ok: false, error: failure };
}

export function registerCompositeRoutes(app: FastifyInstance, ctx: SalesforceContext): void {
  /** One subrequest through the app, with the caller's session. */
  const run = async (
    request: FastifyRequest,
    method: string,
    url: string,
    body: unknown,
    headers: Record<string, string> = {},
    internal = true,
  ): Promise<{ status: number; body: unknown; headers: Record<string, string> }> => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...headers,
        authorization: request.headers.authorization ?? '',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(internal ? { [SUBREQUEST_HEADER]: SUBREQUEST_SECRET } : {}),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    const text = res.body;
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = text;
    }
    const out: Record<string, string> = {};
    if (typeof res.headers.location === 'string') out.Location = res.headers.location;
    return { status: res.statusCode, body: parsed, headers: out };
  };

  /** Validates and runs a list of composite subrequests; with allOrNone, the first failure rolls back and halts. */
  const runComposite = async (
    request: FastifyRequest,
    version: string,
    list: unknown[],
    allOrNone: boolean,
    capHeavy = true,
  ): Promise<{ responses: SubResponse[]; failed: boolean } | string> => {
    const seen = new Set<string>();
    let heavy = 0;
    for (const [i, s] of list.entries()) {
      if (!isRecord(s)) return `compositeRequest[${i}] must be an object with method, url and referenceId`;
      if (typeof s.method !== 'string' || !METHODS.has(s.method)) {
        return `compositeRequest[${i}].method must be one of GET, POST, PATCH, PUT, DELETE (upper case), got '${String(s.method)}'`;
      }
      if (typeof s.url !== 'string' || !s.url.startsWith('/services/data/')) {
        return `compositeRequest[${i}].url must start with /services/data/vXX.X/, got '${String(s.url)}'`;
      }
      if (typeof s.referenceId !== 'string' || !REFERENCE_ID.test(s.referenceId)) {
        return `compositeRequest[${i}].referenceId must start with a letter and hold only letters, digits and underscores`;
      }
      if (seen.has(s.referenceId))
        return `Duplicate referenceId: ${s.referenceId}. Each subrequest needs its own.`;
      seen.add(s.referenceId);
      if (/\/(query|queryAll)(\/|\?|$)|\/composite\/sobjects/.test(s.url)) heavy += 1;
      if (/\/composite(\/(batch|tree|graph))?(\/|\?|$)/.test(s.url.replace(/\/composite\/sobjects.*/, ''))) {
        return `compositeRequest[${i}]: composite resources cannot be nested in a composite request`;
      }
    }
    if (capHeavy && heavy > MAX_QUERY_OR_COLLECTION) {
      return `A composite request can have at most ${MAX_QUERY_OR_COLLECTION} query or sObject Collections subrequests, got ${heavy}`;
    }
    const snap: OrgSnapshot | null = allOrNone ? ctx.org.snapshot() : null;
    const done = new Map<string, SubResponse>();
    const responses: SubResponse[] = [];
    let failed = false;
    for (const raw of list as Array<Record<string, unknown>>) {
      const referenceId = raw.referenceId as string;
      if (failed && allOrNone) {
        responses.push({ body: [HALTED], httpHeaders: {}, httpStatusCode: 400, referenceId });
        continue;
      }
      const url = resolveRefs(raw.url, done, true);
      const body =
        raw.body === undefined
          ? ({ ok: true, value: undefined } as Resolved)
          : resolveRefs(raw.body, done, false);
      let sub: SubResponse;
      if (!url.ok || !body.ok) {
        const error = !url.ok ? url.error : (body as { ok: false; error: ApiError }).error;
        sub = { body: [error], httpHeaders: {}, httpStatusCode: 400, referenceId };
      } else {
        const headers = isRecord(raw.httpHeaders) ? (raw.httpHeaders as Record<string, string>) : {};
        const res = await run(request, raw.method as string, url.value as string, body.value, headers);
        sub = { body: res.body, httpHeaders: res.headers, httpStatusCode: res.status, referenceId };
      }
      done.set(referenceId, sub);
      responses.push(sub);
      if (sub.httpStatusCode >= 400) failed = true;
    }
    if (failed && snap !== null) {
      ctx.org.restore(snap);
      // Every subrequest that had succeeded is reported as rolled back.
      for (const r of responses) {
        if (r.httpStatusCode < 400)
          Object.assign(r, { body: [HALTED], httpHeaders: {}, httpStatusCode: 400 });
      }
    }
    void version;
    return { responses, failed };
  };

  app.post('/services/data/:version/composite', { config: { kind: 'composite' } }, async (request, reply) => {
    const version = versionOf(request, reply);
    if (version === null) return reply;
    const body = request.body;
    if (!isRecord(body) || !Array.isArray(body.compositeRequest)) {
      return invalid(
        reply,
        'The body must be {"compositeRequest": [{"method", "url", "referenceId", "body"}], "allOrNone": false}',
        'JSON_PARSER_ERROR',
      );
    }
    if (body.compositeRequest.length === 0)
      return invalid(reply, 'compositeRequest must hold at least one subrequest');
    if (body.compositeRequest.length > MAX_SUBREQUESTS) {
      return invalid(
        reply,
        `A composite request can have at most ${MAX_SUBREQUESTS} subrequests, got ${body.compositeRequest.length}`,
        'LIMIT_EXCEEDED',
      );
    }
    const result = await runComposite(request, version, body.compositeRequest, body.allOrNone === true);
    if (typeof result === 'string') return invalid(reply, result);
    return sendJson(reply, 200, { compositeResponse: result.responses });
  });

  app.post(
    '/services/data/:version/composite/batch',
    { config: { kind: 'composite.batch' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const body = request.body;
      if (!isRecord(body) || !Array.isArray(body.batchRequests)) {
        return invalid(
          reply,
          'The body must be {"batchRequests": [{"method", "url", "richInput"}], "haltOnError": false}',
          'JSON_PARSER_ERROR',
        );
      }
      if (body.batchRequests.length > MAX_SUBREQUESTS) {
        return invalid(
          reply,
          `A batch can have at most ${MAX_SUBREQUESTS} subrequests, got ${body.batchRequests.length}`,
          'LIMIT_EXCEEDED',
        );
      }
      for (const [i, s] of body.batchRequests.entries()) {
        if (
          !isRecord(s) ||
          typeof s.method !== 'string' ||
          !METHODS.has(s.method) ||
          typeof s.url !== 'string'
        ) {
          return invalid(
            reply,
            `batchRequests[${i}] needs "method" (GET, POST, PATCH, PUT, DELETE) and "url" (e.g. "v${version}/sobjects/Account/001…")`,
          );
        }
      }
      const results: Array<{ statusCode: number; result: unknown }> = [];
      let hasErrors = false;
      for (const s of body.batchRequests as Array<Record<string, unknown>>) {
        if (hasErrors && body.haltOnError === true) {
          results.push({
            statusCode: 412,
            result: [
              { errorCode: 'BATCH_PROCESSING_HALTED', message: 'Batch processing halted per request' },
            ],
          });
          continue;
        }
        // Batch URLs are relative to /services/data/ (`v62.0/sobjects/…`); each is its own API call.
        const rel = (s.url as string).replace(/^\/?(services\/data\/)?/, '');
        const res = await run(request, s.method as string, `/services/data/${rel}`, s.richInput, {}, false);
        if (res.status >= 400) hasErrors = true;
        results.push({ statusCode: res.status, result: res.body });
      }
      return sendJson(reply, 200, { hasErrors, results });
    },
  );

  app.post<{ Params: { version: string; sobject: string } }>(
    '/services/data/:version/composite/tree/:sobject',
    { config: { kind: 'composite.tree' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const root = ctx.org.object(request.params.sobject);
      if (root === undefined)
        return sendErrors(reply, 404, [
          { errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' },
        ]);
      const body = request.body;
      if (!isRecord(body) || !Array.isArray(body.records)) {
        return invalid(
          reply,
          'The body must be {"records": [{"attributes": {"type", "referenceId"}, …fields}]}',
          'JSON_PARSER_ERROR',
        );
      }
      // Flatten parents before their children, checking types, reference ids, depth and the count.
      type Node = {
        type: string;
        referenceId: string;
        fields: Record<string, unknown>;
        parent: number | null;
        link: string | null;
      };
      const nodes: Node[] = [];
      const refs = new Set<string>();
      const walk = (
        records: unknown[],
        type: string,
        parent: number | null,
        link: string | null,
        depth: number,
      ): string | null => {
        if (depth > MAX_TREE_DEPTH) return `A tree can be at most ${MAX_TREE_DEPTH} levels deep`;
        for (const r of records) {
          if (!isRecord(r) || !isRecord(r.attributes))
            return 'Each record needs "attributes": {"type", "referenceId"}';
          const a = r.attributes;
          if (typeof a.type !== 'string' || a.type.toLowerCase() !== type.toLowerCase()) {
            return `attributes.type must be ${type}, got '${String(a.type)}'`;
          }
          if (typeof a.referenceId !== 'string' || a.referenceId === '')
            return 'Each record needs attributes.referenceId';
          if (refs.has(a.referenceId))
            return `Duplicate ReferenceId provided in the request: ${a.referenceId}`;
          refs.add(a.referenceId);
          const meta = ctx.org.object(type);
          const fields: Record<string, unknown> = {};
          const children: Array<[string, unknown]> = [];
          for (const [k, v] of Object.entries(r)) {
            if (k === 'attributes') continue;
            const rel = meta?.describe.childRelationships.find(
              (c) => c.relationshipName?.toLowerCase() === k.toLowerCase(),
            );
            if (rel !== undefined && isRecord(v)) children.push([k, v]);
            else fields[k] = v;
          }
          nodes.push({ type, referenceId: a.referenceId, fields, parent, link });
          const me = nodes.length - 1;
          for (const [k, v] of children) {
            const rel = meta?.describe.childRelationships.find(
              (c) => c.relationshipName?.toLowerCase() === k.toLowerCase(),
            );
            const list = (v as { records?: unknown }).records;
            if (rel === undefined || !Array.isArray(list)) return `${k} must be {"records": [...]}`;
            const err = walk(list, rel.childSObject, me, rel.field, depth + 1);
            if (err !== null) return err;
          }
          if (nodes.length > MAX_TREE_RECORDS) return `A tree can hold at most ${MAX_TREE_RECORDS} records`;
        }
        return null;
      };
      const err = walk(body.records, root.name, null, null, 1);
      if (err !== null)
        return invalid(reply, err, nodes.length > MAX_TREE_RECORDS ? 'LIMIT_EXCEEDED' : 'INVALID_INPUT');
      const snap = ctx.org.snapshot();
      const ids: string[] = [];
      const results: Array<Record<string, unknown>> = [];
      let hasErrors = false;
      for (const n of nodes) {
        const input = { ...n.fields };
        if (n.parent !== null && n.link !== null) input[n.link] = ids[n.parent];
        const [res] = ctx.org.insert(n.type, [input], { userId: userOf(ctx, request) });
        if (res?.success === true && res.id !== undefined) {
          ids.push(res.id);
          results.push({ referenceId: n.referenceId, id: res.id });
        } else {
          hasErrors = true;
          ids.push('');
          results.push({ referenceId: n.referenceId, errors: res?.errors ?? [] });
        }
      }
      if (hasErrors) {
        // The whole tree is one transaction: nothing is saved, only the failures are reported.
        ctx.org.restore(snap);
        return sendJson(reply, 400, { hasErrors: true, results: results.filter((r) => 'errors' in r) });
      }
      return sendJson(reply, 201, { hasErrors: false, results });
    },
  );

  app.post(
    '/services/data/:version/composite/graph',
    { config: { kind: 'composite.graph' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const body = request.body;
      if (!isRecord(body) || !Array.isArray(body.graphs)) {
        return invalid(
          reply,
          'The body must be {"graphs": [{"graphId", "compositeRequest": [...]}]}',
          'JSON_PARSER_ERROR',
        );
      }
      if (body.graphs.length > MAX_GRAPHS)
        return invalid(
          reply,
          `At most ${MAX_GRAPHS} graphs per request, got ${body.graphs.length}`,
          'LIMIT_EXCEEDED',
        );
      const graphIds = new Set<string>();
      for (const [i, g] of body.graphs.entries()) {
        if (!isRecord(g) || typeof g.graphId !== 'string' || !Array.isArray(g.compositeRequest)) {
          return invalid(reply, `graphs[${i}] needs "graphId" and "compositeRequest"`);
        }
        if (graphIds.has(g.graphId)) return invalid(reply, `Duplicate graphId: ${g.graphId}`);
        graphIds.add(g.graphId);
        if (g.compositeRequest.length > MAX_GRAPH_NODES) {
          return invalid(
            reply,
            `A graph can have at most ${MAX_GRAPH_NODES} nodes, got ${g.compositeRequest.length}`,
            'LIMIT_EXCEEDED',
          );
        }
      }
      const graphs = [];
      for (const g of body.graphs as Array<{ graphId: string; compositeRequest: unknown[] }>) {
        const result = await runGraph(request, version, g.compositeRequest);
        if (typeof result === 'string') {
          graphs.push({
            graphId: g.graphId,
            graphResponse: {
              compositeResponse: [
                {
                  body: [{ errorCode: 'INVALID_INPUT', message: result }],
                  httpHeaders: {},
                  httpStatusCode: 400,
                  referenceId: 'graph',
                },
              ],
            },
            isSuccessful: false,
          });
          continue;
        }
        graphs.push({
          graphId: g.graphId,
          graphResponse: { compositeResponse: result.responses },
          isSuccessful: !result.failed,
        });
      }
      return sendJson(reply, 200, { graphs });
    },
  );

  // Each graph is its own all-or-none transaction, without the per-request query/collection cap.
  const runGraph = (request: FastifyRequest, version: string, list: unknown[]) =>
    runComposite(request, version, list, true, false);
}
