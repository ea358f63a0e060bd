import assert from 'node:assert/strict';
import type { Stack } from './stack.ts';
import { waitFor } from './wait.ts';

/** The fields of a job view that following it needs; each test names the rest it reads. */
export interface FollowedJob {
  state: string;
  counts: { processed: number };
}

/** Follows a job through `GET /v1/jobs/:id` until it ends, noting every `processed` count seen on the way. */
export async function followJob<J extends FollowedJob>(
  s: Stack,
  id: string,
): Promise<{ job: J; seen: number[] }> {
  const seen: number[] = [];
  let job: J | undefined;
  await waitFor(
    `job ${id} to end`,
    async () => {
      const got = await s.api<J>(`/v1/jobs/${id}`, { method: 'GET' });
      assert.equal(got.status, 200, got.text);
      job = got.body;
      seen.push(job.counts.processed);
      return !['queued', 'running'].includes(job.state);
    },
    { timeoutMs: 120_000 },
  );
  return { job: job as J, seen };
}
