import type { Clock } from '../lib/clock.ts';
import type { JobProgress } from '../providers/adapter.ts';

const PROGRESS_EVERY_MS = 100;

// Hands a running job's latest counts to `write` at most every PROGRESS_EVERY_MS (a failed write is
// dropped); `stop` drops the rest and waits for a write in flight.
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
