/** Collects unhandled rejections and uncaught exceptions while the fuzzer runs (either is a failure). */
export function watchProcessFaults(): { faults: string[]; stop(): void } {
  const faults: string[] = [];
  const describe = (kind: string, reason: unknown) =>
    faults.push(`${kind}: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  const onRejection = (reason: unknown) => describe('unhandled rejection', reason);
  const onException = (error: unknown) => describe('uncaught exception', error);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    faults,
    stop() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}
