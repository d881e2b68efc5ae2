import { Command, Operation } from '@once/protocol';
import { encodeFrame } from '@once/protocol/internal';
import { type SessionIdentity } from './session-identity';

/**
 * The request frames the SDK sends, built from the identity as it is at send
 * time. A COMMAND's header changes between sends only in `session` (after a
 * REGISTER moved the epoch); its body never does.
 */

/** REGISTER: `session` = `request` = 0, credentials in the body. */
export function registerFrame(
  identity: SessionIdentity,
  username: string,
  password: string,
): Buffer {
  return encodeFrame(
    { command: Command.Request, operation: Operation.Register, client: identity.clientId },
    JSON.stringify({ username, password }),
  );
}

/**
 * COMMAND or LOGOUT under the current epoch. Every one carries the resume
 * token: on a bound connection it is ignored, on an unbound one (a fresh
 * connection after a disconnect) it rebinds the session implicitly.
 */
export function replicatedFrame(
  identity: SessionIdentity,
  operation: Operation.Command | Operation.Logout,
  request: number,
  body: Buffer,
): Buffer {
  return encodeFrame(
    {
      command: Command.Request,
      operation,
      client: identity.clientId,
      session: identity.epoch,
      request,
      resumeToken: identity.resumeToken,
    },
    body,
  );
}

/** QUERY: `request` = 0 under the current epoch; needs a bound connection. */
export function queryFrame(identity: SessionIdentity, body: Buffer): Buffer {
  return encodeFrame(
    {
      command: Command.Request,
      operation: Operation.Query,
      client: identity.clientId,
      session: identity.epoch,
    },
    body,
  );
}

/**
 * PING: no session; it carries the client id (any is accepted) so that its
 * answer is told apart from other clients' in a capture.
 */
export function pingFrame(identity: SessionIdentity): Buffer {
  return encodeFrame({
    command: Command.Request,
    operation: Operation.Ping,
    client: identity.clientId,
  });
}

/** The body of a COMMAND or QUERY: `{"pattern","data"}`, serialised once. */
export function callBody(pattern: string, data: unknown): Buffer {
  return Buffer.from(JSON.stringify({ pattern, data: data === undefined ? null : data }), 'utf8');
}
