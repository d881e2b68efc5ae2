import { Status } from '@once/protocol';
import { ProtocolStatusError } from './protocol-status.error';

/** NOT_READY: The node is replaying its journal or stopping, or is a cluster follower. The SDK retries the same frames on the next node (the leader a follower names, if any) or after a backoff delay; callers see it only in diagnostics. */
export class NotReadyError extends ProtocolStatusError {
  override readonly name = 'NotReadyError';
  declare readonly code: 'NOT_READY';

  constructor(message: string) {
    super(Status.NotReady, message);
  }
}
