import { redactSecrets } from '@once/settings';

/**
 * A cluster node could not reach any of its NATS servers at start (code
 * `NATS_UNREACHABLE`). Later outages are ridden out (the client reconnects
 * for ever); at start there is no journal to serve from, so the node stops
 * and says which servers it tried. The servers and the reason are redacted:
 * credentials a URL carried and every secret in `secrets` show as `***`.
 */
export class NatsUnreachableError extends Error {
  readonly code = 'NATS_UNREACHABLE';

  constructor(servers: readonly string[], cause: unknown, secrets: readonly string[] = []) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      redactSecrets(
        `cannot reach the cluster's NATS servers (${servers.join(', ')}): ${reason}`,
        secrets,
      ),
    );
    this.name = 'NatsUnreachableError';
  }
}
