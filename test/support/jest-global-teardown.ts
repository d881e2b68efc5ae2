import { TEST_RUN_VARIABLE, findTaggedProcesses } from './test-run-processes';

/**
 * A process a test started and did not stop (a service, a client, a child of
 * the soak or the bench, orphans included) is named on stderr and
 * SIGKILLed, so nothing of the run keeps a port, a data directory or a CI
 * job alive. Prints only when there is such a leak to fix.
 *
 * The runner itself is ended by jest's `forceExit` (both configs). A TCP
 * handle that Node failed to close (a `resetAndDestroy()` refused because a
 * shutdown was pending still marks the handle closing; see TcpProxy) makes
 * Node's exit cleanup spin forever after the last test, every test passed;
 * `process.exit` skips that cleanup, so such a leak cannot hang a run.
 */
export default function globalTeardown(): void {
  const runId = process.env[TEST_RUN_VARIABLE];
  if (!runId) return;
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
