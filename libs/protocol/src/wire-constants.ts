/**
 * Constants of the wire protocol, version 1 (docs/PROTOCOL.md).
 *
 * Every number here is part of a contract that outside clients are written
 * against; changing one is a protocol version change, never a refactor.
 */

/** Every frame starts with a header of exactly this many bytes. */
export const HEADER_SIZE = 128;

/** The bytes `O N C E` read as a little-endian u32. */
export const MAGIC = 0x45434e4f;

/** The only protocol version this node serves. */
export const PROTOCOL_VERSION = 1;

/** Default upper bound of a frame's `size` (header + body), in bytes. */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;

/** Byte offsets of the header fields (see the frame table of PROTOCOL.md). */
export const Offset = {
  checksum: 0,
  checksumBody: 16,
  magic: 32,
  version: 36,
  command: 38,
  operation: 39,
  size: 40,
  status: 44,
  reserved: 46,
  client: 48,
  session: 64,
  request: 72,
  /** `resume_token` on a request, `request_checksum` on a reply. */
  resumeToken: 80,
  op: 96,
  commit: 104,
  timestamp: 112,
  watermark: 120,
} as const;

/** Header byte 38. */
export enum Command {
  Request = 1,
  Reply = 2,
  Eviction = 3,
}

/** Header byte 39. */
export enum Operation {
  Register = 1,
  Logout = 2,
  Command = 3,
  Query = 4,
  Ping = 5,
}

/** Header bytes 44..45 of a REPLY. */
export enum Status {
  Ok = 0,
  BadFrame = 1,
  VersionUnsupported = 2,
  InvalidRequest = 3,
  Unauthenticated = 4,
  NotBound = 5,
  ClientOwnedByOtherUser = 6,
  EpochAhead = 7,
  RequestGap = 8,
  RequestConflict = 9,
  AlreadyApplied = 10,
  NotReady = 11,
}

/** Header bytes 44..45 of an EVICTION. */
export enum EvictionReason {
  NoSession = 1,
  SessionTooLow = 2,
  Evicted = 3,
  Superseded = 4,
  LoggedOut = 5,
  Expired = 6,
}

/** The protocol's names of the status codes, as used in error codes and logs. */
export const STATUS_NAMES: Readonly<Record<Status, string>> = {
  [Status.Ok]: 'OK',
  [Status.BadFrame]: 'BAD_FRAME',
  [Status.VersionUnsupported]: 'VERSION_UNSUPPORTED',
  [Status.InvalidRequest]: 'INVALID_REQUEST',
  [Status.Unauthenticated]: 'UNAUTHENTICATED',
  [Status.NotBound]: 'NOT_BOUND',
  [Status.ClientOwnedByOtherUser]: 'CLIENT_OWNED_BY_OTHER_USER',
  [Status.EpochAhead]: 'EPOCH_AHEAD',
  [Status.RequestGap]: 'REQUEST_GAP',
  [Status.RequestConflict]: 'REQUEST_CONFLICT',
  [Status.AlreadyApplied]: 'ALREADY_APPLIED',
  [Status.NotReady]: 'NOT_READY',
};

/** The protocol's names of the eviction reasons. */
export const EVICTION_REASON_NAMES: Readonly<Record<EvictionReason, string>> = {
  [EvictionReason.NoSession]: 'NO_SESSION',
  [EvictionReason.SessionTooLow]: 'SESSION_TOO_LOW',
  [EvictionReason.Evicted]: 'EVICTED',
  [EvictionReason.Superseded]: 'SUPERSEDED',
  [EvictionReason.LoggedOut]: 'LOGGED_OUT',
  [EvictionReason.Expired]: 'EXPIRED',
};
