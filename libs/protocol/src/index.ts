export * from './wire-constants';
export * from './client-id';
export * from './checksum';
export * from './u64';
export { isZero } from './zero-bytes';
export {
  ProtocolError,
  FieldOutOfRangeError,
  FrameTooLargeError,
  type ProtocolErrorCode,
} from './protocol-error';
export { type FrameHeader, decodeHeader } from './frame-header';
export { type Frame, frameFromBytes } from './frame';
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
export {
  type ReplyOutcome,
  okBody,
  okBodyText,
  errorBody,
  errorBodyText,
  parseReplyBody,
} from './reply-body';
