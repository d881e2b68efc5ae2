/**
 * Errors this library throws.
 *
 * They are thrown only for mistakes of the calling code (a field that does not
 * fit its wire width, a node secret of the wrong size, ...). Bytes from a peer
 * never throw: the decoder and the request parser return results instead, so a
 * hostile client cannot turn a malformed frame into an exception on the hot path.
 */

/** Stable machine-readable codes of {@link ProtocolError}; part of the library's API. */
export type ProtocolErrorCode =
  | 'FIELD_OUT_OF_RANGE'
  | 'FRAME_TOO_LARGE'
  | 'SHORT_HEADER'
  | 'SIZE_MISMATCH'
  | 'INVALID_RESUME_TOKEN'
  | 'INVALID_NODE_SECRET'
  | 'INVALID_OPTION';

/** Base class of every error thrown by `@once/protocol`; `code` never changes wording. */
export class ProtocolError extends Error {
  override readonly name: string = 'ProtocolError';

  constructor(
    readonly code: ProtocolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A header field given to the encoder does not fit its wire width. */
export class FieldOutOfRangeError extends ProtocolError {
  override readonly name = 'FieldOutOfRangeError';

  constructor(
    readonly field: string,
    value: unknown,
    range: string,
  ) {
    super('FIELD_OUT_OF_RANGE', `${field} ${String(value)} is not a ${range}`);
  }
}

/** A frame would be longer than the u32 `size` field can describe. */
export class FrameTooLargeError extends ProtocolError {
  override readonly name = 'FrameTooLargeError';

  constructor(readonly sizeBytes: number) {
    super('FRAME_TOO_LARGE', `frame of ${sizeBytes} bytes does not fit the u32 size field`);
  }
}
