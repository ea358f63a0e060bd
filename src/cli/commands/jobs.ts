import type { JobRow } from '../../store/types.ts';
import { FINISHED_JOB_STATES } from '../../store/types.ts';
import { CommandError, cliIo, note, UsageError, whole } from '../io.ts';
import { type Group, leaf, listing } from './subcommands.ts';

// Read from the store directly: no API token, and it works with the service stopped.

const list = listing({
  help: './bin/crm-proxy.mjs jobs list [--token ID] [--limit N] [--json]   write jobs, newest first',
  options: { token: { type: 'string' }, limit: { type: 'string' } },
  check: (values) => whole(values.limit, '--limit', 50, 1000),
  load: (core, values) =>
    core.store.jobs.list({ limit: whole(values.limit, '--limit', 50, 1000), tokenId: values.token }),
  empty: 'No jobs.',
  headers: ['ID', 'STATE', 'OPERATION', 'OBJECT', 'INTERFACE', 'PROCESSED', 'SUCCEEDED', 'FAILED', 'CREATED'],
  row: (j) => [
    j.id,
    j.state,
    j.operation,
    j.objectName ?? '',
    j.interface ?? '',
    `${j.processed}/${j.total}`,
    String(j.succeeded),
    String(j.failed),
    j.createdAt,
  ],
});

const watch = leaf({
  help: './bin/crm-proxy.mjs jobs watch ID [--interval-ms N]     a live progress bar until the job ends, then its counts',
  options: { 'interval-ms': { type: 'string' } },
  operands: 'any',
  async run(core, values, [id]) {
    if (id === undefined)
      throw new UsageError('jobs watch needs a job id (./bin/crm-proxy.mjs jobs list shows them)');
    const interval = whole(values['interval-ms'], '--interval-ms', 500, 60_000);
    let job = await core.store.jobs.find(id);
    if (job === null)
      throw new CommandError(`There is no job ${id} (finished jobs are pruned after the retention period).`);
    // Loaded here, not at start-up; the bar goes to stderr, so stdout carries only the final counts.
    const { default: cliProgress } = await import('cli-progress');
    const bar = new cliProgress.SingleBar(
      {
        stream: cliIo().stderr as NodeJS.WritableStream,
        format: '{bar} {percentage}% | {value}/{total} records | {succeeded} ok, {failed} failed | {state}',
        noTTYOutput: true,
        notTTYSchedule: interval,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    const payload = (j: JobRow) => ({ succeeded: j.succeeded, failed: j.failed, state: j.state });
    bar.start(job.total, job.processed, payload(job));
    while (!FINISHED_JOB_STATES.includes(job.state)) {
      await new Promise((resolve) => setTimeout(resolve, interval));
      job = (await core.store.jobs.find(id)) ?? job;
      bar.update(job.processed, payload(job));
    }
    bar.stop();
    const seconds =
      job.startedAt !== null && job.finishedAt !== null
        ? ` in ${((Date.parse(job.finishedAt) - Date.parse(job.startedAt)) / 1000).toFixed(1)} s`
        : '';
    cliIo().stdout.write(
      `${job.id} ${job.state}${seconds}: ${job.processed}/${job.total} processed, ${job.succeeded} succeeded, ${job.failed} failed${job.interface ? ` (${job.interface})` : ''}\n`,
    );
    if (job.state === 'failed' && job.error !== null) {
      const { body } = JSON.parse(job.error) as { body: { error: { code: string; message: string } } };
      note(`${body.error.code}: ${body.error.message}`);
    }
    return job.state === 'failed' ? 1 : 0;
  },
});

export const jobs: Group = { subcommands: { list, watch } };
