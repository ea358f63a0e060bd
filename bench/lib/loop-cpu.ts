/**
 * The most CPU time this process spent in one turn of its event loop: a timer due every
 * millisecond (so run once per turn) notes the process's CPU time, and the largest step between
 * two notes is the longest turn. A busy machine delays timers, which inflates a wall-clock loop
 * delay, but adds no CPU time to this process: the figure holds on a loaded machine. It counts
 * every thread of the process (a parallel garbage collection too), so it errs on the high side.
 */
export function longestTurnCpu(): { stop(): number } {
  let last = process.cpuUsage();
  let maxMs = 0;
  const timer = setInterval(() => {
    const step = process.cpuUsage(last);
    last = process.cpuUsage();
    maxMs = Math.max(maxMs, (step.user + step.system) / 1000);
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      return maxMs;
    },
  };
}
