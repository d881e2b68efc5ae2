/**
 * The NATS security settings do not fit together or a file they name cannot
 * be read (code `NATS_SECURITY_INVALID`): the node does not start. The
 * message names the settings and the file, never a secret.
 */
export class NatsSecurityError extends Error {
  readonly code = 'NATS_SECURITY_INVALID';
  override readonly name = 'NatsSecurityError';
}
