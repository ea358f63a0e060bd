import { jobView } from '../../jobs/view.ts';
import { JobSchema } from '../durable-doc.ts';
import { principalOf } from '../plugins/auth.ts';
import { JobParams, ownJob } from './jobs-shared.ts';
import type { ApiApp, RouteServices } from './types.ts';

/** `GET /v1/jobs/{job_id}` follows a job; `DELETE` cancels it. */
export function register(app: ApiApp, ctx: RouteServices): void {
  app.get(
    '/v1/jobs/:job_id',
    {
      schema: { params: JobParams },
      config: {
        doc: {
          operationId: 'getJob',
          summary: 'Get a job',
          description:
            'State (`queued`, `running`, `completed`, `failed`, `cancelled`), the interface in use, counts that move while it runs (total, processed, succeeded, failed), timings and the CRM’s own job ids. A job interrupted by a restart of the service is resumed by the next instance to start (or another running one) and goes on from where it was.',
          tags: ['Jobs'],
          responses: { '200': { description: 'The job.', schema: JobSchema } },
          errors: [404],
        },
      },
    },
    async (request) =>
      jobView(await ownJob(ctx.jobReads, principalOf(request).token.id, request.params.job_id)),
  );

  app.delete(
    '/v1/jobs/:job_id',
    {
      schema: { params: JobParams },
      config: {
        doc: {
          operationId: 'cancelJob',
          summary: 'Cancel a job',
          description:
            'Stops sending what has not been sent: those records end `CRM_PROXY_CANCELLED` (nothing written for them); calls already made keep their results, and a Bulk API job still open is aborted (one already running is asked to stop; what it processed keeps its results). Answers `202` with the job while it winds down, `200` with it when it had already finished.',
          tags: ['Jobs'],
          responses: {
            '200': { description: 'The job had already finished; nothing changed.', schema: JobSchema },
            '202': { description: 'Cancel asked; the job ends `cancelled`.', schema: JobSchema },
          },
          errors: [404],
        },
      },
    },
    async (request, reply) => {
      const job = await ownJob(ctx.jobReads, principalOf(request).token.id, request.params.job_id);
      if (job.state !== 'queued' && job.state !== 'running') return jobView(job);
      await ctx.jobs.cancel(job.id);
      reply.code(202);
      return jobView((await ctx.jobReads.find(job.id)) ?? job);
    },
  );
}
