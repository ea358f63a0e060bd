import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { lockFaulted } from '../../context.ts';
import type { IdFactory } from '../../org/ids.ts';
import { apiVersion, type BulkContext, requestUserId, restError } from '../context.ts';
import { type ColumnDelimiter, DELIMITERS, type LineEnding } from '../csv.ts';
import { BULK_OPERATIONS, type BulkOperation } from '../dml.ts';
import { IngestJob, type IngestState } from './job.ts';
import { processIngestJob, shuffledOrder } from './process.ts';

const BASE = '/services/data/:version/jobs/ingest';
type VersionParams = { version: string };
type JobParams = { version: string; jobId: string };

const NOT_FOUND = (reply: FastifyReply) =>
  restError(reply, 404, 'NOT_FOUND', 'The requested resource does not exist');

/**
 * Job data is parsed when processing starts, so an upload only stores the text. Error codes and
 * texts of state errors follow the Bulk API 2.0 error list (InvalidJob, InvalidJobState); their
 * exact messages are not documented and are worded here.
 */
export function registerBulk2Routes(app: FastifyInstance, ctx: BulkContext, ids: IdFactory): void {
  const jobs = new Map<string, IngestJob>();
  ctx.onReset(() => {
    for (const j of jobs.values()) if (j.state === 'InProgress') j.setState('Aborted');
    jobs.clear();
  });

  const find = (params: JobParams): { job: IngestJob; version: string } | null => {
    const version = apiVersion(params.version);
    const job = jobs.get(params.jobId);
    return version === null || job === undefined ? null : { job, version };
  };

  app.post<{ Params: VersionParams; Body: unknown }>(
    BASE,
    { config: { kind: 'bulk2.createJob' } },
    async (req, reply) => {
      const version = apiVersion(req.params.version);
      if (version === null) return NOT_FOUND(reply);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const str = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : undefined);
      const operation = str('operation');
      const object = str('object');
      const delimiter = str('columnDelimiter') ?? 'COMMA';
      const lineEnding = str('lineEnding') ?? 'LF';
      const contentType = str('contentType') ?? 'CSV';
      const enumError = (field: string, value: string) =>
        restError(
          reply,
          400,
          'JSON_PARSER_ERROR',
          `Cannot deserialize value of type \`${field}\` from String "${value}": not one of the values accepted for Enum class`,
        );
      if (operation === undefined)
        return restError(reply, 400, 'INVALIDJOB', 'InvalidJob : Operation is required');
      if (!(BULK_OPERATIONS as readonly string[]).includes(operation)) {
        // `query` belongs to /jobs/query.
        return enumError('OperationEnum', operation);
      }
      if (!(delimiter in DELIMITERS)) return enumError('ColumnDelimiterEnum', delimiter);
      if (lineEnding !== 'LF' && lineEnding !== 'CRLF') return enumError('LineEndingEnum', lineEnding);
      if (contentType !== 'CSV') return enumError('ContentType', contentType);
      if (object === undefined) return restError(reply, 400, 'INVALIDJOB', 'InvalidJob : Object is required');
      const meta = ctx.org.schema.get(object);
      if (meta === undefined)
        return restError(reply, 400, 'INVALIDJOB', `InvalidJob : Unable to find object: ${object}`);
      let ext: string | null = null;
      if (operation === 'upsert') {
        const name = str('externalIdFieldName');
        if (name === undefined || name === '') {
          return restError(
            reply,
            400,
            'INVALIDJOB',
            `InvalidJob : External ID was blank for ${meta.name}. An External ID must be specified for upsert.`,
          );
        }
        const f = meta.field(name);
        if (f === undefined || !(f.externalId || f.idLookup)) {
          return restError(
            reply,
            400,
            'INVALIDJOB',
            `InvalidJob : Field name provided, ${name} is not an External ID or indexed field for ${meta.name}`,
          );
        }
        ext = f.name;
      }
      const job = new IngestJob({
        id: ids.next('750'),
        object: meta.name,
        operation: operation as BulkOperation,
        externalIdFieldName: ext,
        format: { columnDelimiter: delimiter as ColumnDelimiter, lineEnding: lineEnding as LineEnding },
        apiVersion: version,
        createdById: requestUserId(ctx, req),
        now: Date.now(),
      });
      jobs.set(job.id, job);
      return reply.code(200).send(job.info(version));
    },
  );

  app.get<{ Params: VersionParams }>(BASE, { config: { kind: 'bulk2.listJobs' } }, async (req, reply) => {
    const version = apiVersion(req.params.version);
    if (version === null) return NOT_FOUND(reply);
    const records = [...jobs.values()].map((j) => {
      const { contentUrl: _omit, ...rest } = j.info(version);
      return rest;
    });
    return { done: true, records, nextRecordsUrl: null };
  });

  app.get<{ Params: JobParams }>(
    `${BASE}/:jobId`,
    { config: { kind: 'bulk2.getJob' } },
    async (req, reply) => {
      const f = find(req.params);
      return f === null ? NOT_FOUND(reply) : f.job.fullInfo(f.version);
    },
  );

  app.register(async (scope) => {
    if (!scope.hasContentTypeParser('text/csv')) {
      scope.addContentTypeParser('text/csv', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    }
    scope.put<{ Params: JobParams; Body: string }>(
      `${BASE}/:jobId/batches`,
      { config: { kind: 'bulk2.upload' }, bodyLimit: 150 * 1024 * 1024 },
      async (req, reply) => {
        const f = find(req.params);
        if (f === null) return NOT_FOUND(reply);
        if (f.job.state !== 'Open') {
          return restError(
            reply,
            409,
            'INVALIDJOBSTATE',
            `InvalidJobState : Job data can only be uploaded to a job in the Open state; this job is ${f.job.state}`,
          );
        }
        // An empty upload is job data with no rows: the job completes with nothing processed.
        // Salesforce's documentation is silent; jsforce's own suite asserts this for
        // `loadAndWaitForResults({input: []})` (an insert and a delete), and sync tools send it
        // whenever nothing changed.
        const text = typeof req.body === 'string' ? req.body : '';
        // A second upload is accepted here, as Salesforce does; closing the job then fails.
        f.job.uploads.push(text);
        return reply.code(201).send();
      },
    );
  });

  const patch = async (req: FastifyRequest<{ Params: JobParams; Body: unknown }>, reply: FastifyReply) => {
    const f = find(req.params);
    if (f === null) return NOT_FOUND(reply);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const target = body.state;
    const { job, version } = f;
    const allowed: Partial<Record<IngestState, IngestState[]>> = {
      Open: ['UploadComplete', 'Aborted'],
      UploadComplete: ['Aborted'],
      InProgress: ['Aborted'],
    };
    if (typeof target !== 'string' || !(allowed[job.state] ?? []).includes(target as IngestState)) {
      return restError(
        reply,
        400,
        'INVALIDJOBSTATE',
        `InvalidJobState : Invalid state transition from ${job.state} to ${String(target)}`,
      );
    }
    if (target === 'UploadComplete') {
      if (job.uploads.length === 0) {
        // Closing a job with no data fails it at once, as Salesforce does.
        job.errorMessage = 'InvalidBatch : No data was uploaded to the job';
        job.setState('Failed');
        return reply.send(job.info(version));
      }
      if (job.uploads.length > 1) {
        // Salesforce's own answer, typo included, when a job got more than one PUT.
        return restError(
          reply,
          400,
          'INVALIDJOB',
          `Found multipe contents for job: <${job.id.slice(0, 15)}>, please 'Close' / 'Abort' / 'Delete' the current Job then create a new Job and make sure you only do 'PUT' once on a given Job.`,
        );
      }
      job.setState('UploadComplete');
      if (lockFaulted(req)) job.lockRows = true;
      processIngestJob(ctx, job).catch((e: unknown) => app.log.error(e));
    } else {
      job.setState('Aborted');
    }
    return reply.send(job.info(version));
  };
  app.patch<{ Params: JobParams; Body: unknown }>(
    `${BASE}/:jobId`,
    { config: { kind: 'bulk2.close' } },
    async (req, reply) => patch(req, reply),
  );

  app.delete<{ Params: JobParams }>(
    `${BASE}/:jobId`,
    { config: { kind: 'bulk2.deleteJob' } },
    async (req, reply) => {
      const f = find(req.params);
      if (f === null) return NOT_FOUND(reply);
      if (f.job.state === 'Open' || f.job.state === 'InProgress') {
        return restError(
          reply,
          400,
          'INVALIDJOBSTATE',
          `InvalidJobState : A job in the ${f.job.state} state cannot be deleted`,
        );
      }
      jobs.delete(f.job.id);
      return reply.code(204).send();
    },
  );

  const csvRoute = (suffix: string, kind: string, render: (job: IngestJob) => string) => {
    for (const path of [`${BASE}/:jobId/${suffix}`, `${BASE}/:jobId/${suffix}/`]) {
      app.get<{ Params: JobParams }>(path, { config: { kind } }, async (req, reply) => {
        const f = find(req.params);
        if (f === null) return NOT_FOUND(reply);
        return reply.header('content-type', 'text/csv').send(render(f.job));
      });
    }
  };
  csvRoute('successfulResults', 'bulk2.successfulResults', (job) =>
    job.successfulResults(shuffledOrder(ctx, job)),
  );
  csvRoute('failedResults', 'bulk2.failedResults', (job) => job.failedResults(shuffledOrder(ctx, job)));
  csvRoute('unprocessedrecords', 'bulk2.unprocessedRecords', (job) => job.unprocessedRecords());
}
