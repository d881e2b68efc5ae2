import {
  AuthorizationError,
  TimeoutError,
  UserAuthenticationExpiredError,
} from '@nats-io/nats-core';
import { NatsAuthFailedError, type NatsConnectPlan, refusesCredentials } from '../connection';
import { NatsUnreachableError } from './nats-unreachable.error';

/**
 * What a failed first connection to NATS means to an operator: refused
 * credentials ({@link NatsAuthFailedError}, `NATS_AUTH_FAILED`), which
 * waiting will not mend, or servers that did not answer or whose TLS did not
 * verify ({@link NatsUnreachableError}, `NATS_UNREACHABLE`). Either message
 * is redacted by the plan's secrets; the client's error is not kept as the
 * cause, so no chain printed later can carry more than the message says.
 */
export function natsConnectError(plan: NatsConnectPlan, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  const refused =
    error instanceof AuthorizationError ||
    error instanceof UserAuthenticationExpiredError ||
    refusesCredentials(reason);
  if (refused) return new NatsAuthFailedError(plan.addresses, plan.method, reason, plan.secrets);
  // A server that requires a client certificate ends a TLS 1.3 connection
  // without one after the handshake, and the client only sees time pass.
  const hint =
    error instanceof TimeoutError && plan.tls && !plan.clientCertificate
      ? ' (no answer over TLS: a server that requires a client certificate closes the connection ' +
        'without one; see ONCE_NATS_TLS_CERT_FILE and ONCE_NATS_TLS_KEY_FILE)'
      : '';
  return new NatsUnreachableError(plan.addresses, `${reason}${hint}`, plan.secrets);
}
