import { TEST_RUN_VARIABLE, findTaggedProcesses } from './test-run-processes';

/** How long the runner may outlive its last test before it is made to exit. */
const EXIT_GRACE_MS = 10_000;

/**
 * Makes sure a test run ends when its tests do:
 * - a process a test started and did not stop (a service, a client, a child
 *   of the soak or the bench) is named on stderr and SIGKILLed, so nothing
 *   of the run keeps a port, a data directory or a CI job alive;
 * - if something inside the runner still holds the event loop after
 *   {@link EXIT_GRACE_MS}, what it is gets named on stderr and the runner
 *   exits (with the exit code jest chose), instead of hanging.
 * Both print only when there is a leak to fix.
 */
export default function globalTeardown(): void {
  const runId = process.env[TEST_RUN_VARIABLE];
  if (runId) {
    for (const leftover of findTaggedProcesses(runId)) {
      console.error(
        `[teardown] process ${leftover.pid} outlived the tests and is killed: ${leftover.command}`,
      );
      try {
        process.kill(leftover.pid, 'SIGKILL');
      } catch {
        // it ended meanwhile
      }
    }
  }
  setTimeout(() => {
    console.error(
      `[teardown] the test runner is still running ${EXIT_GRACE_MS} ms after its last test, ` +
        `held by: ${process.getActiveResourcesInfo().join(', ')}; exiting`,
    );
    // No code: jest's own exit listener sets it (non-zero when a test failed).
    process.exit();
  }, EXIT_GRACE_MS).unref();
}
