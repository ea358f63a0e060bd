import type { Clock } from '../lib/clock.ts';
import type { JobProgress } from '../providers/adapter.ts';

const PROGRESS_EVERY_MS = 100;

/**
 * Keeps a running job's latest counts and hands them to `write` at most every PROGRESS_EVERY_MS
 * (a failed write is dropped: the next counts follow); `stop` drops what is left and waits for a
 * write in flight (the final counts are written when the job finishes).
 */
export function progressWriter(
  clock: Pick<Clock, 'sleep'>,
  write: (counts: JobProgress, via: string | null) => Promise<void>,
) {
  let latest: { counts: JobProgress; via: string | null } | undefined;
  let writing: Promise<void> | undefined;
  const stopped = new AbortController();
  const run = async () => {
    while (latest !== undefined && !stopped.signal.aborted) {
      const next = latest;
      latest = undefined;
      await write(next.counts, next.via).catch(() => {});
      await clock.sleep(PROGRESS_EVERY_MS, stopped.signal);
    }
    writing = undefined;
  };
  return {
    update: (counts: JobProgress, via?: string) => {
      if (stopped.signal.aborted) return;
      latest = { counts: { ...counts }, via: via ?? null };
      writing ??= run();
    },
    stop: async () => {
      stopped.abort();
      latest = undefined;
      await writing;
    },
  };
}
