import { AuthorizationError, UserAuthenticationExpiredError } from '@nats-io/nats-core';
import { NatsAuthFailedError, type NatsConnectPlan } from '../connection';
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
    /authorization violation|authentication (?:expired|timeout)/i.test(reason);
  return refused
    ? new NatsAuthFailedError(plan.addresses, plan.method, reason, plan.secrets)
    : new NatsUnreachableError(plan.addresses, error, plan.secrets);
}
