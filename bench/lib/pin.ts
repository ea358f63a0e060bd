// BENCH_PIN=1: the process being measured (the service, the lean forwarder) runs on CPU 0 and
// everything else (load generator, upstream, sandbox) on the other CPUs, through Linux `taskset`.
// Unpinned, the measured process and the load generator take turns on the same cores, and its CPU
// per request moves by a fifth from one run to the next as the scheduler places them.
import { availableParallelism } from 'node:os';

export type PinRole = 'measured' | 'other';

/** `command args`, wrapped in `taskset` when BENCH_PIN is set and there are two CPUs or more. */
export function pinned(role: PinRole, command: string, args: string[]): [string, string[]] {
  const cpus = availableParallelism();
  if (process.env['BENCH_PIN'] === undefined || cpus < 2) return [command, args];
  const list = role === 'measured' ? '0' : `1-${cpus - 1}`;
  return ['taskset', ['-c', list, command, ...args]];
}
