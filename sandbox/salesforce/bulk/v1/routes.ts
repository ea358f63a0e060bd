import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { lockFaulted } from '../../context.ts';
import { limitsOf } from '../../limits/state.ts';
import type { IdFactory } from '../../org/ids.ts';
import { SoqlError } from '../../query/errors.ts';
import { flattenRecord } from '../../query/execute.ts';
import { type BulkContext, requestUserId } from '../context.ts';
import { writeCsv } from '../csv.ts';
import { BULK_OPERATIONS, type BulkOperation, formatBulkError } from '../dml.ts';
import { type Batch, batchInfo, ClassicJob, type ContentType } from './job.ts';
import { ClassicProcessor } from './process.ts';
import { ASYNC_NS, readFlatXml, xmlDocument, xmlList } from './xml.ts';

const BASE = '/services/async/:version/job';
type JobParams = { version: string; jobId: string };
type BatchParams = JobParams & { batchId: string };

const isJsonRequest = (req: FastifyRequest) => /^application\/json/i.test(req.headers['content-type'] ?? '');

/**
 * Bulk API 1.0. XML by default, JSON when the request is JSON (or, for GETs, when the job's
 * content type is JSON). Errors are `<error><exceptionCode>..` (400), and an invalid session is
 * 400 `InvalidSessionId`, the answer jsforce's Bulk client refreshes on. Batches are CSV or JSON
 * (jsforce 3.10 `bulk.load` sends CSV with `#N/A` for nulls); XML batches are not emulated.
 */
export function registerBulk1Routes(app: FastifyInstance, ctx: BulkContext, ids: IdFactory): void {
  const jobs = new Map<string, ClassicJob>();
  const processor = new ClassicProcessor(ctx);
  ctx.onReset(() => {
    for (const j of jobs.values()) j.state = 'Aborted';
    jobs.clear();
  });

  const send = (
    reply: FastifyReply,
    json: boolean,
    status: number,
    root: string,
    fields: Record<string, unknown>,
  ) =>
    json
      ? reply.code(status).header('content-type', 'application/json').send(JSON.stringify(fields))
      : reply
          .code(status)
          .header('content-type', 'application/xml')
          .send(xmlDocument(root, fields as Record<string, string | number | null | undefined>));
  const fail = (reply: FastifyReply, json: boolean, code: string, message: string, status = 400) =>
    send(reply, json, status, 'error', { exceptionCode: code, exceptionMessage: message });

  /** Session check and job lookup shared by every job route; an answer when the call cannot go on. */
  const guard = (req: FastifyRequest<{ Params: Partial<BatchParams> }>, reply: FastifyReply) => {
    const json = isJsonRequest(req);
    const session =
      req.headers['x-sfdc-session'] ??
      /^(?:Bearer|OAuth)\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (typeof session !== 'string' || !ctx.oauth.verifyAccessToken(session).ok) {
      return { stop: fail(reply, json, 'InvalidSessionId', 'Invalid session id') };
    }
    if (!/^\d{2,3}\.\d$/.test(req.params.version ?? ''))
      return { stop: fail(reply, json, 'InvalidUrl', 'unknown version', 404) };
    if (req.params.jobId === undefined) return { json };
    const job = jobs.get(req.params.jobId);
    if (job === undefined)
      return { stop: fail(reply, json, 'InvalidJob', `Invalid job id: ${req.params.jobId}`) };
    // A JSON job answers in JSON, whatever a batch's own content type (query batches are SOQL text).
    const asJson = json || job.contentType === 'JSON';
    if (req.params.batchId === undefined) return { json: asJson, job };
    const batch = job.batches.find((b) => b.id === req.params.batchId);
    if (batch === undefined)
      return { stop: fail(reply, asJson, 'InvalidBatch', `Invalid batch id: ${req.params.batchId}`) };
    return { json: asJson, job, batch };
  };

  app.register(async (scope) => {
    for (const type of ['application/xml', 'text/xml', 'text/csv']) {
      if (!scope.hasContentTypeParser(type)) {
        scope.addContentTypeParser(type, { parseAs: 'string' }, (_req, body, done) => done(null, body));
      }
    }

    scope.post<{ Params: { version: string }; Body: unknown }>(
      BASE,
      { config: { kind: 'bulk1.createJob' } },
      async (req, reply) => {
        const g = guard(req, reply);
        if ('stop' in g) return g.stop;
        const fields = g.json
          ? jsonFields(req.body)
          : readFlatXml(typeof req.body === 'string' ? req.body : '');
        const operation = [...BULK_OPERATIONS, ...QUERY_OPERATIONS].find(
          (o) => o.toLowerCase() === (fields.operation ?? '').toLowerCase(),
        );
        if (operation === undefined)
          return fail(reply, g.json, 'InvalidJob', `Invalid operation: ${fields.operation ?? ''}`);
        const meta = ctx.org.schema.get(fields.object ?? '');
        if (meta === undefined)
          return fail(reply, g.json, 'InvalidJob', `Unable to find object: ${fields.object ?? ''}`);
        const contentType = (fields.contentType ?? (g.json ? 'JSON' : 'CSV')).toUpperCase();
        if (contentType !== 'CSV' && contentType !== 'JSON') {
          return fail(reply, g.json, 'InvalidJob', `Unsupported content type: ${contentType}`);
        }
        let ext: string | null = null;
        if (operation === 'upsert') {
          const f = meta.field(fields.externalIdFieldName ?? '');
          if (fields.externalIdFieldName === undefined || fields.externalIdFieldName === '') {
            return fail(
              reply,
              g.json,
              'InvalidJob',
              `External ID was blank for ${meta.name}. An External ID must be specified for upsert.`,
            );
          }
          if (f === undefined || !(f.externalId || f.idLookup)) {
            return fail(
              reply,
              g.json,
              'InvalidJob',
              `Field name provided, ${fields.externalIdFieldName} is not an External ID or indexed field for ${meta.name}`,
            );
          }
          ext = f.name;
        }
        const job = new ClassicJob(
          ids.next('750'),
          operation as BulkOperation,
          meta.name,
          ext,
          contentType as ContentType,
          req.params.version,
          requestUserId(ctx, req),
          Date.now(),
        );
        jobs.set(job.id, job);
        return send(reply, g.json, 201, 'jobInfo', jobInfoFor(job, g.json));
      },
    );

    scope.get<{ Params: JobParams }>(
      `${BASE}/:jobId`,
      { config: { kind: 'bulk1.getJob' } },
      async (req, reply) => {
        const g = guard(req, reply);
        if ('stop' in g) return g.stop;
        return send(reply, g.json, 200, 'jobInfo', jobInfoFor(g.job as ClassicJob, g.json));
      },
    );

    scope.post<{ Params: JobParams; Body: unknown }>(
      `${BASE}/:jobId`,
      { config: { kind: 'bulk1.closeJob' } },
      async (req, reply) => {
        const g = guard(req, reply);
        if ('stop' in g) return g.stop;
        const job = g.job as ClassicJob;
        const fields = g.json
          ? jsonFields(req.body)
          : readFlatXml(typeof req.body === 'string' ? req.body : '');
        const target = fields.state;
        const ok =
          (target === 'Closed' && job.state === 'Open') ||
          (target === 'Aborted' && (job.state === 'Open' || job.state === 'Closed'));
        if (!ok)
          return fail(
            reply,
            g.json,
            'InvalidJobState',
            `Invalid state transition from ${job.state} to ${target ?? ''}`,
          );
        job.state = target === 'Closed' ? 'Closed' : 'Aborted';
        job.systemModstamp = Date.now();
        if (job.state === 'Aborted') {
          for (const b of job.batches) if (b.state === 'Queued') b.state = 'NotProcessed';
        }
        return send(reply, g.json, 200, 'jobInfo', jobInfoFor(job, g.json));
      },
    );

    scope.post<{ Params: JobParams; Body: unknown }>(
      `${BASE}/:jobId/batch`,
      { config: { kind: 'bulk1.addBatch' }, bodyLimit: 150 * 1024 * 1024 },
      async (req, reply) => {
        const g = guard(req, reply);
        if ('stop' in g) return g.stop;
        const job = g.job as ClassicJob;
        if (job.state !== 'Open')
          return fail(reply, g.json, 'InvalidJobState', `Unable to create batch: the job is ${job.state}`);
        const body = job.contentType === 'JSON' ? req.body : typeof req.body === 'string' ? req.body : '';
        const empty = Array.isArray(body)
          ? body.length === 0
          : typeof body !== 'string' || body.trim() === '';
        if (empty) return fail(reply, g.json, 'ClientInputError', 'Empty batch');
        const limits = limitsOf(ctx);
        const isQuery = (QUERY_OPERATIONS as readonly string[]).includes(job.operation);
        if (isQuery && typeof body !== 'string') {
          return fail(reply, g.json, 'ClientInputError', 'A query batch is the SOQL text of the query');
        }
        if (limits.bulkBatches >= limits.dailyBulkApiBatches) {
          return fail(
            reply,
            g.json,
            'ExceededQuota',
            `The daily allocation of ${limits.dailyBulkApiBatches} Bulk API batches is used up`,
          );
        }
        const now = Date.now();
        const batch: Batch = {
          id: ids.next('751'),
          jobId: job.id,
          state: 'Queued',
          stateMessage: null,
          createdDate: now,
          systemModstamp: now,
          body: body as string | unknown[],
          results: [],
          numberRecordsFailed: 0,
          totalProcessingTime: 0,
          locked: lockFaulted(req),
        };
        job.batches.push(batch);
        if (isQuery) {
          runQueryBatch(job, batch, body as string, ids.next('752'));
          // Answered as queued, as Salesforce does; the next status call sees it completed.
          return send(reply, g.json, 201, 'batchInfo', { ...batchInfo(batch), state: 'Queued' });
        }
        processor.kick(job);
        return send(reply, g.json, 201, 'batchInfo', batchInfo(batch));
      },
    );

    scope.get<{ Params: JobParams }>(
      `${BASE}/:jobId/batch`,
      { config: { kind: 'bulk1.listBatches' } },
      async (req, reply) => {
        const g = guard(req, reply);
        if ('stop' in g) return g.stop;
        const infos = (g.job as ClassicJob).batches.map(batchInfo);
        if (g.json)
          return reply.header('content-type', 'application/json').send(JSON.stringify({ batchInfo: infos }));
        return reply
          .header('content-type', 'application/xml')
          .send(xmlList('batchInfoList', 'batchInfo', infos));
      },
    );

    scope.get<{ Params: BatchParams }>(
      `${BASE}/:jobId/batch/:batchId`,
      { config: { kind: 'bulk1.getBatch' } },
      async (req, reply) => {
        const g = guard(req, reply);
        if ('stop' in g) return g.stop;
        return send(reply, g.json, 200, 'batchInfo', batchInfo(g.batch as Batch));
      },
    );

    scope.get<{ Params: BatchParams }>(
      `${BASE}/:jobId/batch/:batchId/result`,
      { config: { kind: 'bulk1.batchResult' } },
      async (req, reply) => {
        const g = guard(req, reply);
        if ('stop' in g) return g.stop;
        const batch = g.batch as Batch;
        if (batch.state !== 'Completed') return fail(reply, g.json, 'InvalidBatch', 'Batch not completed');
        if (batch.query !== undefined) {
          // A query batch answers the list of its result sets, each fetched by id.
          if (g.json)
            return reply
              .header('content-type', 'application/json')
              .send(JSON.stringify([batch.query.resultId]));
          return reply
            .header('content-type', 'application/xml')
            .send(
              `<?xml version="1.0" encoding="UTF-8"?><result-list xmlns="${ASYNC_NS}"><result>${batch.query.resultId}</result></result-list>`,
            );
        }
        if ((g.job as ClassicJob).contentType === 'JSON') {
          const rows = batch.results.map((r) => ({
            success: r.success,
            created: r.created,
            id: r.id,
            errors: r.errors,
          }));
          return reply.header('content-type', 'application/json').send(JSON.stringify(rows));
        }
        const rows = batch.results.map((r) => [
          r.id ?? '',
          String(r.success),
          String(r.created),
          r.success ? '' : formatBulkError(r.errors),
        ]);
        const csv = writeCsv(['Id', 'Success', 'Created', 'Error'], rows, {
          columnDelimiter: 'COMMA',
          lineEnding: 'LF',
        });
        return reply.header('content-type', 'text/csv').send(csv);
      },
    );

    scope.get<{ Params: BatchParams & { resultId: string } }>(
      `${BASE}/:jobId/batch/:batchId/result/:resultId`,
      { config: { kind: 'bulk1.queryResult' } },
      async (req, reply) => {
        const g = guard(req, reply);
        if ('stop' in g) return g.stop;
        const query = (g.batch as Batch).query;
        if (query === undefined || query.resultId !== req.params.resultId) {
          return fail(reply, g.json, 'InvalidBatch', `Invalid result id: ${req.params.resultId}`);
        }
        if ((g.job as ClassicJob).contentType === 'JSON') {
          return reply.header('content-type', 'application/json').send(JSON.stringify(query.records));
        }
        return reply.header('content-type', 'text/csv').send(query.csv);
      },
    );
  });

  /** Runs a query batch at once: Completed with its result set, or Failed with the query's error. */
  const runQueryBatch = (job: ClassicJob, batch: Batch, soql: string, resultId: string) => {
    try {
      const run = ctx.org.query(soql.trim(), {
        includeDeleted: (job.operation as string) === 'queryAll',
        version: job.apiVersion,
      });
      const rows = run.records.map((r) =>
        flattenRecord(r, run.columns).map((v) => (v === null ? '' : String(v))),
      );
      const csv =
        run.columns.length === 0
          ? ''
          : writeCsv(run.columns, rows, { columnDelimiter: 'COMMA', lineEnding: 'LF' });
      batch.query = {
        resultId,
        csv: csv === '' && run.records.length === 0 ? 'Records not found for this query' : csv,
        records: run.records,
      };
      batch.state = 'Completed';
    } catch (e) {
      if (!(e instanceof SoqlError)) throw e;
      batch.state = 'Failed';
      batch.stateMessage = `InvalidBatch : Failed to process query: ${e.errorCode}: ${e.message}`;
    }
    batch.systemModstamp = Date.now();
  };
}

/** Bulk 1.0 query operations: the batch is a SOQL query and its result is one CSV (or JSON) set. */
const QUERY_OPERATIONS = ['query', 'queryAll'] as const;

function jsonFields(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  }
  return out;
}

/** JSON job info carries numbers and `apiVersion` as a number; XML writes every value as text. */
function jobInfoFor(job: ClassicJob, json: boolean): Record<string, unknown> {
  const info = job.info();
  return json ? { ...info, apiVersion: Number(info.apiVersion) } : info;
}
