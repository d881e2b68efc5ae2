import { type NodeAnswer } from '../node-answer';
import { OnceError } from './once.error';

/**
 * No session could be bound: the first attempt of `OnceClient.connect`
 * failed at the transport level, or every reconnect attempt
 * (`reconnect.attemptsMax`) failed. `cause` holds the last failure.
 * `lastAnswer` keeps the last answer a node gave while the client tried (a
 * NOT_READY: which node, its role, the leader it named), also told in the
 * message, so that "no session bound" never hides where the client was
 * sent; `undefined` when no node answered.
 */
export class ConnectError extends OnceError {
  override readonly name = 'ConnectError';
  declare readonly code: 'CONNECT_FAILED';
  readonly lastAnswer: NodeAnswer | undefined;

  constructor(message: string, options?: { cause?: unknown; lastAnswer?: NodeAnswer }) {
    super(
      'CONNECT_FAILED',
      message,
      options && 'cause' in options ? { cause: options.cause } : undefined,
    );
    this.lastAnswer = options?.lastAnswer;
  }
}
