/** Exit codes of a process ended by a signal: 128 + the signal's number. */
const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * On SIGINT or SIGTERM: runs `cleanup` (kill the children), then exits
 * through `process.exit`, so that 'exit' listeners run too (the harness's
 * service processes are killed there). Without it, a signal ends the
 * process at once and leaves its children running.
 */
export function exitOnSignals(cleanup: () => void = () => undefined): void {
  for (const [signal, exitCode] of Object.entries(SIGNAL_EXIT_CODES)) {
    process.once(signal, () => {
      cleanup();
      process.exit(exitCode);
    });
  }
}
