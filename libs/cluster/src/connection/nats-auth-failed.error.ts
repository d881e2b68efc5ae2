import { redactSecrets } from '@once/settings';

/**
 * The NATS servers refused this node's credentials at start (code
 * `NATS_AUTH_FAILED`): none given where the server requires some, a wrong
 * password, token or nkey, an expired or revoked JWT. Unlike an outage this
 * will not mend by waiting, so the node stops and says which setting to
 * check. The message names the servers without their credentials and never
 * holds a secret.
 */
export class NatsAuthFailedError extends Error {
  readonly code = 'NATS_AUTH_FAILED';
  override readonly name = 'NatsAuthFailedError';

  /**
   * @param servers the addresses tried, redacted by the caller or here
   * @param method how the node authenticated ("no credentials", "user once", …)
   * @param reason the server's answer ("Authorization Violation")
   */
  constructor(
    servers: readonly string[],
    method: string,
    reason: string,
    secrets: readonly string[],
  ) {
    super(
      redactSecrets(
        `the cluster's NATS servers (${servers.join(', ')}) refused this node's credentials ` +
          `(${method}): ${reason}; check ONCE_NATS_USER and ONCE_NATS_PASSWORD[_FILE], ` +
          'ONCE_NATS_TOKEN[_FILE], ONCE_NATS_NKEY_SEED_FILE or ONCE_NATS_CREDS_FILE ' +
          "against the servers' authorization",
        secrets,
      ),
    );
  }
}

/**
 * True when a NATS server's error message says it refused the client's
 * credentials (wrong, missing, expired), as opposed to an outage.
 */
export function refusesCredentials(message: string): boolean {
  return /authorization violation|authentication (?:expired|timeout)/i.test(message);
}
