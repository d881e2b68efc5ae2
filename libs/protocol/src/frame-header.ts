import { type ClientId, readClientId } from './client-id';
import { ProtocolError } from './protocol-error';
import { readU64 } from './u64';
import { HEADER_SIZE, Offset } from './wire-constants';

/**
 * The 128-byte header of a frame, field by field (PROTOCOL.md, "Frames").
 *
 * Byte fields (`checksum`, `checksumBody`, `resumeToken`) are views into the
 * frame's bytes, not copies: they live exactly as long as the frame does.
 */
export interface FrameHeader {
  /** XXH3-128 of header bytes 16..127, as the 16 wire bytes (view). */
  checksum: Buffer;
  /** XXH3-128 of the body, as the 16 wire bytes (view). */
  checksumBody: Buffer;
  magic: number;
  version: number;
  command: number;
  operation: number;
  /** Header + body, in bytes. */
  size: number;
  status: number;
  reserved: number;
  client: ClientId;
  session: number;
  request: number;
  /** Bytes 80..95: `resume_token` on a request, `request_checksum` on a reply (view). */
  resumeToken: Buffer;
  op: number;
  commit: number;
  /** Nanoseconds since the Unix epoch; a bigint because it exceeds 2^53. */
  timestamp: bigint;
  watermark: number;
}

/**
 * Reads every header field of the frame starting at `offset`, without checking
 * any of them: validation is the decoder's job, and callers that hold frames
 * they produced themselves (the reply cache, the journal) need no second check.
 *
 * u64 fields above 2^53 read rounded (see u64.ts); code that must echo them
 * exactly copies the raw bytes instead.
 */
export function decodeHeader(buffer: Buffer, offset = 0): FrameHeader {
  if (offset < 0 || buffer.length - offset < HEADER_SIZE) {
    throw new ProtocolError(
      'SHORT_HEADER',
      `a header needs ${HEADER_SIZE} bytes, ${buffer.length - offset} available at offset ${offset}`,
    );
  }
  return {
    checksum: buffer.subarray(offset + Offset.checksum, offset + Offset.checksum + 16),
    checksumBody: buffer.subarray(offset + Offset.checksumBody, offset + Offset.checksumBody + 16),
    magic: buffer.readUInt32LE(offset + Offset.magic),
    version: buffer.readUInt16LE(offset + Offset.version),
    command: buffer[offset + Offset.command],
    operation: buffer[offset + Offset.operation],
    size: buffer.readUInt32LE(offset + Offset.size),
    status: buffer.readUInt16LE(offset + Offset.status),
    reserved: buffer.readUInt16LE(offset + Offset.reserved),
    client: readClientId(buffer, offset + Offset.client),
    session: readU64(buffer, offset + Offset.session),
    request: readU64(buffer, offset + Offset.request),
    resumeToken: buffer.subarray(offset + Offset.resumeToken, offset + Offset.resumeToken + 16),
    op: readU64(buffer, offset + Offset.op),
    commit: readU64(buffer, offset + Offset.commit),
    timestamp: readTimestamp(buffer, offset + Offset.timestamp),
    watermark: readU64(buffer, offset + Offset.watermark),
  };
}

/**
 * The u64 timestamp as a bigint. Requests carry zero there, and the literal
 * `0n` is a constant where reading it would make a new bigint per frame.
 */
function readTimestamp(buffer: Buffer, offset: number): bigint {
  if (buffer.readUInt32LE(offset) === 0 && buffer.readUInt32LE(offset + 4) === 0) return 0n;
  return buffer.readBigUInt64LE(offset);
}
