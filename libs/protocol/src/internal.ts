/**
 * `@once/protocol/internal`: the codecs both ends of the wire share, for the
 * sibling packages (`@once/journal`, `@once/engine`, `@once/gateway`,
 * `@once/sdk`, `@once/testing`, ...): frame layout and offsets, the encoder
 * and decoder, checksums, u64 and client-id codecs, the request parser,
 * resume tokens, reply bodies. Not covered by semver: it changes with the
 * packages of the same version, which are always installed together.
 *
 * @packageDocumentation
 * @internal
 */
export { HEADER_SIZE, MAGIC, DEFAULT_MAX_FRAME_BYTES, Offset } from './wire-constants';
export {
  ZERO_CLIENT_ID,
  readClientId,
  writeClientId,
  writeValidClientId,
  clientIdFromBigInt,
  clientIdToBigInt,
} from './client-id';
export {
  CHECKSUM_SIZE,
  checksumImplementation,
  whenChecksumReady,
  nativeChecksum,
  checksumInto,
  checksum,
  checksumMatches,
  EMPTY_CHECKSUM,
  ZERO_CHECKSUM,
} from './checksum';
export { readU64, writeU64, writeBigU64 } from './u64';
export { isZero } from './zero-bytes';
export { decodeHeader } from './frame-header';
export { frameFromBytes } from './frame';
export {
  type FrameFields,
  type ReplyFields,
  encodeFrame,
  encodeReplyTo,
  withRequestChecksum,
} from './frame-encoder';
export { type FrameDecoderOptions, type DecodeResult, FrameDecoder } from './frame-decoder';
export { type ParsedRequest, type RequestParseResult, parseRequest } from './request-parser';
export {
  RESUME_TOKEN_SIZE,
  NODE_SECRET_SIZE,
  mintResumeToken,
  verifyResumeToken,
  resumeTokenToHex,
  resumeTokenFromHex,
} from './resume-token';
export { okBody, okBodyText, errorBody, errorBodyText } from './reply-body';
