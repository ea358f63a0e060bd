import type { FastifyInstance, FastifyReply } from 'fastify';
import { limitsOf } from '../../limits/state.ts';
import type { IdFactory } from '../../org/ids.ts';
import { SoqlError } from '../../query/errors.ts';
import { flattenRecord, type QueryRun } from '../../query/execute.ts';
import { apiVersion, type BulkContext, requestUserId, restError, sfDateTime } from '../context.ts';
import { type ColumnDelimiter, type CsvFormat, DELIMITERS, type LineEnding, writeCsv } from '../csv.ts';

type QueryState = 'UploadComplete' | 'InProgress' | 'JobComplete' | 'Failed' | 'Aborted';

interface QueryJob {
  id: string;
  operation: 'query' | 'queryAll';
  object: string;
  query: string;
  format: CsvFormat;
  apiVersion: string;
  createdById: string;
  createdDate: number;
  systemModstamp: number;
  state: QueryState;
  columns: string[];
  rows: string[][];
  totalProcessingTime: number;
}

const BASE = '/services/data/:version/jobs/query';
type JobParams = { version: string; jobId: string };

function info(job: QueryJob) {
  return {
    id: job.id,
    operation: job.operation,
    object: job.object,
    createdById: job.createdById,
    createdDate: sfDateTime(job.createdDate),
    systemModstamp: sfDateTime(job.systemModstamp),
    state: job.state,
    concurrencyMode: 'Parallel',
    contentType: 'CSV',
    apiVersion: Number(job.apiVersion),
    jobType: 'V2Query',
    lineEnding: job.format.lineEnding,
    columnDelimiter: job.format.columnDelimiter,
  };
}

/** CSV cell of a query value: empty for null, `true`/`false`, numbers as JavaScript writes them. */
const cell = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/**
 * Bulk API 2.0 query jobs (`/jobs/query`): the query is checked when the job is created (a bad
 * query is a 400 there), runs asynchronously, and its CSV is paged with `locator` / `maxRecords`;
 * `Sforce-Locator` names the next page, the string `null` the end. Without `maxRecords` one page
 * holds every row.
 */
export function registerBulk2QueryRoutes(app: FastifyInstance, ctx: BulkContext, ids: IdFactory): void {
  const jobs = new Map<string, QueryJob>();
  ctx.onReset(() => {
    jobs.clear();
  });
  const notFound = (reply: FastifyReply) =>
    restError(reply, 404, 'NOT_FOUND', 'The requested resource does not exist');
  const find = (p: JobParams) => (apiVersion(p.version) === null ? undefined : jobs.get(p.jobId));

  app.post<{ Params: { version: string }; Body: unknown }>(
    BASE,
    { config: { kind: 'bulk2.query.createJob' } },
    async (req, reply) => {
      const version = apiVersion(req.params.version);
      if (version === null) return notFound(reply);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const operation = body.operation ?? 'query';
      const delimiter = (body.columnDelimiter ?? 'COMMA') as string;
      const lineEnding = (body.lineEnding ?? 'LF') as string;
      if (operation !== 'query' && operation !== 'queryAll') {
        return restError(
          reply,
          400,
          'INVALIDJOB',
          `InvalidJob : Invalid query operation: ${String(operation)}`,
        );
      }
      if (!(delimiter in DELIMITERS) || (lineEnding !== 'LF' && lineEnding !== 'CRLF')) {
        return restError(
          reply,
          400,
          'JSON_PARSER_ERROR',
          'Cannot deserialize columnDelimiter or lineEnding: not one of the values accepted',
        );
      }
      if (typeof body.query !== 'string' || body.query.trim() === '') {
        return restError(reply, 400, 'INVALIDJOB', 'InvalidJob : A query is required');
      }
      const limits = limitsOf(ctx);
      if (limits.bulkV2QueryJobs >= 10_000) {
        return restError(
          reply,
          400,
          'EXCEEDEDQUOTA',
          'ExceededQuota : The daily allocation of Bulk API 2.0 query jobs is used up',
        );
      }
      let run: QueryRun;
      try {
        run = ctx.org.query(body.query, { includeDeleted: operation === 'queryAll', version });
      } catch (e) {
        if (e instanceof SoqlError) return restError(reply, 400, e.errorCode, e.message);
        throw e;
      }
      limits.bulkV2QueryJobs += 1;
      const now = Date.now();
      const job: QueryJob = {
        id: ids.next('750'),
        operation,
        object: /\bfrom\s+(\w+)/i.exec(body.query)?.[1] ?? '',
        query: body.query,
        format: { columnDelimiter: delimiter as ColumnDelimiter, lineEnding: lineEnding as LineEnding },
        apiVersion: version,
        createdById: requestUserId(ctx, req),
        createdDate: now,
        systemModstamp: now,
        state: 'UploadComplete',
        columns: [],
        rows: [],
        totalProcessingTime: 0,
      };
      jobs.set(job.id, job);
      void (async () => {
        await new Promise<void>((r) => setImmediate(r));
        if (job.state !== 'UploadComplete') return;
        job.state = 'InProgress';
        await ctx.realism.callDelay();
        await ctx.realism.recordDelay(run.records.length);
        if (job.state !== 'InProgress') return;
        job.columns = run.columns;
        job.rows = run.records.map((r) => flattenRecord(r, run.columns).map(cell));
        job.state = 'JobComplete';
        job.systemModstamp = Date.now();
        job.totalProcessingTime = job.systemModstamp - now;
      })();
      return reply.send(info(job));
    },
  );

  app.get<{ Params: JobParams }>(
    `${BASE}/:jobId`,
    { config: { kind: 'bulk2.query.getJob' } },
    async (req, reply) => {
      const job = find(req.params);
      if (job === undefined) return notFound(reply);
      return {
        ...info(job),
        numberRecordsProcessed: job.rows.length,
        retries: 0,
        totalProcessingTime: job.totalProcessingTime,
        isPkChunkingSupported: true,
      };
    },
  );

  app.get<{ Params: JobParams; Querystring: { locator?: string; maxRecords?: string } }>(
    `${BASE}/:jobId/results`,
    { config: { kind: 'bulk2.query.results' } },
    async (req, reply) => {
      const job = find(req.params);
      if (job === undefined) return notFound(reply);
      if (job.state !== 'JobComplete') {
        return restError(
          reply,
          400,
          'INVALIDJOBSTATE',
          `InvalidJobState : Results are available once the job is JobComplete; it is ${job.state}`,
        );
      }
      const start =
        req.query.locator === undefined
          ? 0
          : Number.parseInt(Buffer.from(req.query.locator, 'base64url').toString(), 10);
      const max =
        req.query.maxRecords === undefined ? job.rows.length : Number.parseInt(req.query.maxRecords, 10);
      if (!Number.isInteger(start) || start < 0 || !Number.isInteger(max) || max < 1) {
        return restError(reply, 400, 'INVALIDLOCATOR', 'Invalid locator or maxRecords');
      }
      const page = job.rows.slice(start, start + max);
      const next = start + page.length;
      return reply
        .header('content-type', 'text/csv')
        .header(
          'sforce-locator',
          next < job.rows.length ? Buffer.from(String(next)).toString('base64url') : 'null',
        )
        .header('sforce-numberofrecords', String(page.length))
        .send(writeCsv(job.columns, page, job.format) || `${job.columns.join(',')}\n`);
    },
  );

  app.patch<{ Params: JobParams; Body: unknown }>(
    `${BASE}/:jobId`,
    { config: { kind: 'bulk2.query.abort' } },
    async (req, reply) => {
      const job = find(req.params);
      if (job === undefined) return notFound(reply);
      const target = ((req.body ?? {}) as Record<string, unknown>).state;
      if (target !== 'Aborted' || (job.state !== 'UploadComplete' && job.state !== 'InProgress')) {
        return restError(
          reply,
          400,
          'INVALIDJOBSTATE',
          `InvalidJobState : Invalid state transition from ${job.state} to ${String(target)}`,
        );
      }
      job.state = 'Aborted';
      job.systemModstamp = Date.now();
      return reply.send(info(job));
    },
  );

  app.delete<{ Params: JobParams }>(
    `${BASE}/:jobId`,
    { config: { kind: 'bulk2.query.deleteJob' } },
    async (req, reply) => {
      const job = find(req.params);
      if (job === undefined) return notFound(reply);
      jobs.delete(job.id);
      return reply.code(204).send();
    },
  );
}
