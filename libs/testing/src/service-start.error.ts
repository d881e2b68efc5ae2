/** A service child process did not come up: its options name no service, it exited, or it was not ready in time. */
export class ServiceStartError extends Error {
  readonly code = 'SERVICE_START';
}
