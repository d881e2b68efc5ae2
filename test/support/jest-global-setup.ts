import { randomUUID } from 'node:crypto';
import { TEST_RUN_VARIABLE } from './test-run-processes';

/**
 * Tags this jest run: every process a test starts inherits the variable
 * (services, clients, the soak, the bench and their own children), so the
 * global teardown can find the ones still running when the run ends, even
 * those whose parent is gone.
 */
export default function globalSetup(): void {
  process.env[TEST_RUN_VARIABLE] = randomUUID();
}
