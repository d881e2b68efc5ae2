import { STATUS_NAMES, type Status } from '@once/protocol';
import { OnceError } from './once.error';

/**
 * A REPLY whose `status` is not OK (PROTOCOL.md, "Status codes"): `code` is the
 * status's protocol name and `status` its number. Each status has its own
 * subclass, so callers can use `instanceof` as well as `code`.
 */
export class ProtocolStatusError extends OnceError {
  override readonly name: string = 'ProtocolStatusError';

  constructor(
    readonly status: Status,
    message: string,
  ) {
    super(STATUS_NAMES[status], message);
  }
}
