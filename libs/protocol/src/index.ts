/**
 * The public API of `@once/protocol`: the wire vocabulary a team meets in
 * frames (through `@once/testing`'s raw client) and in the documentation of
 * the protocol: operations, commands, statuses, eviction reasons, client
 * ids, frames, reply bodies, and the protocol's errors. The codecs, checksums
 * and resume tokens both ends share are for the sibling packages:
 * `@once/protocol/internal`.
 *
 * @packageDocumentation
 * @public
 */
export {
  PROTOCOL_VERSION,
  Command,
  Operation,
  Status,
  EvictionReason,
  STATUS_NAMES,
  EVICTION_REASON_NAMES,
} from './wire-constants';
export { type ClientId, isClientId, randomClientId } from './client-id';
export {
  ProtocolError,
  FieldOutOfRangeError,
  FrameTooLargeError,
  type ProtocolErrorCode,
} from './protocol-error';
export { type FrameHeader } from './frame-header';
export { type Frame } from './frame';
export { type ReplyOutcome, parseReplyBody } from './reply-body';
