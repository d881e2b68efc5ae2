import { checksumInto, CHECKSUM_SIZE, EMPTY_CHECKSUM } from './checksum';
import { type ClientId, writeValidClientId } from './client-id';
import { type Frame } from './frame';
import { FieldOutOfRangeError, FrameTooLargeError, ProtocolError } from './protocol-error';
import { writeBigU64, writeU64 } from './u64';
import { Command, HEADER_SIZE, MAGIC, Offset, PROTOCOL_VERSION } from './wire-constants';

/**
 * The header fields a sender chooses. Everything else (`magic`, `version`,
 * `size`, both checksums, `reserved`) follows from them and the body.
 * Absent fields are zero.
 */
export interface FrameFields {
  command: Command;
  operation: number;
  status?: number;
  client?: ClientId;
  session?: number;
  request?: number;
  /** Request: the session's resume token. Reply: `request_checksum`. 16 bytes. */
  resumeToken?: Uint8Array;
  op?: number;
  commit?: number;
  /** Nanoseconds since the Unix epoch. */
  timestamp?: bigint;
  watermark?: number;
}

/** The fields of an answer that do not come from the request it answers. */
export interface ReplyFields {
  command: Command.Reply | Command.Eviction;
  status: number;
  /**
   * The epoch the answer is given under, when it is not the request's own
   * `session`: a REGISTER reply carries the new epoch although its request
   * carried 0. Absent: the request's bytes are echoed.
   */
  session?: number;
  op?: number;
  commit?: number;
  timestamp?: bigint;
  watermark?: number;
}

/**
 * Where a frame's bytes live. `'pooled'` (the default): `Buffer.allocUnsafe`,
 * a slice of Node's shared pool when small, cheapest for a frame that is sent
 * and dropped. `'exact'`: one exact-size buffer of its own
 * (`Buffer.allocUnsafeSlow`), for a frame kept long, such as a reply the
 * client table caches, which would otherwise pin a whole pool slab.
 */
export type FrameAllocation = 'pooled' | 'exact';

/** The largest value of the u32 `size` field, hence the largest encodable frame. */
const MAX_SIZE_FIELD = 0xffff_ffff;
const U64_END = 1n << 64n;

/**
 * Builds one frame: header fields, body, `size`, `checksum_body` and `checksum`.
 *
 * A string body is written as UTF-8 straight into the frame, so a JSON body is
 * serialised once and copied once. Throws {@link ProtocolError} when a field
 * does not fit its wire width or the frame would exceed the u32 `size`.
 */
export function encodeFrame(
  fields: FrameFields,
  body?: Uint8Array | string,
  allocation: FrameAllocation = 'pooled',
): Buffer {
  const out = allocFrame(body, allocation);
  writeU8('command', out, Offset.command, fields.command);
  writeU8('operation', out, Offset.operation, fields.operation);
  if (fields.status !== undefined) writeU16('status', out, Offset.status, fields.status);
  if (fields.client !== undefined) writeClient(out, fields.client);
  if (fields.session !== undefined) writeU64Field('session', out, Offset.session, fields.session);
  if (fields.request !== undefined) writeU64Field('request', out, Offset.request, fields.request);
  if (fields.resumeToken !== undefined) writeResumeToken(out, fields.resumeToken);
  writeReplyCounters(out, fields);
  return sealFrame(out);
}

/**
 * Builds the REPLY or EVICTION answering `request`.
 *
 * `operation`, `client`, `session` and `request` are copied as raw bytes from
 * the request header, so a u64 a peer sent above 2^53 (which reads rounded as a
 * number) is echoed exactly. `request_checksum` is the request's `checksum_body`
 * on a REPLY; an EVICTION answers no particular request body and carries 16
 * zero bytes (as the golden vectors do).
 */
export function encodeReplyTo(
  request: Frame,
  fields: ReplyFields,
  body?: Uint8Array | string,
): Buffer {
  if (fields.command !== Command.Reply && fields.command !== Command.Eviction) {
    throw new FieldOutOfRangeError('command', fields.command, 'REPLY (2) or EVICTION (3)');
  }
  const out = allocFrame(body, 'pooled');
  const source = request.raw;
  out[Offset.command] = fields.command;
  out[Offset.operation] = source[Offset.operation];
  writeU16('status', out, Offset.status, fields.status);
  // client (48..63), session (64..71) and request (72..79) are contiguous.
  source.copy(out, Offset.client, Offset.client, Offset.resumeToken);
  if (fields.session !== undefined) writeU64Field('session', out, Offset.session, fields.session);
  if (fields.command === Command.Reply) {
    source.copy(out, Offset.resumeToken, Offset.checksumBody, Offset.checksumBody + CHECKSUM_SIZE);
  }
  writeReplyCounters(out, fields);
  return sealFrame(out);
}

/**
 * Writes `checksum_body` and then `checksum` of a frame whose other bytes are
 * final, in place, and returns it. The header checksum covers `checksum_body`,
 * so the order matters. `size` is left as it is.
 */
export function sealFrame(frame: Buffer): Buffer {
  if (frame.length === HEADER_SIZE) {
    EMPTY_CHECKSUM.copy(frame, Offset.checksumBody);
  } else {
    checksumInto(frame.subarray(HEADER_SIZE), frame, Offset.checksumBody);
  }
  checksumInto(frame.subarray(Offset.checksumBody, HEADER_SIZE), frame, Offset.checksum);
  return frame;
}

/**
 * A copy of the answer `reply` with `requestChecksum` in its
 * `request_checksum` field and the header checksum written anew. For answers
 * built from a journal entry that keeps 16 zero bytes there on purpose (a
 * REGISTER's body holds a password, and the XXH3 of it is not kept on disk).
 */
export function withRequestChecksum(reply: Buffer, requestChecksum: Uint8Array): Buffer {
  if (requestChecksum.length !== CHECKSUM_SIZE) {
    throw new FieldOutOfRangeError(
      'request_checksum',
      `${requestChecksum.length} bytes`,
      `${CHECKSUM_SIZE}-byte checksum`,
    );
  }
  const out = Buffer.from(reply);
  out.set(requestChecksum, Offset.resumeToken);
  checksumInto(out.subarray(Offset.checksumBody, HEADER_SIZE), out, Offset.checksum);
  return out;
}

/**
 * Allocates header + body, copies the body in, and writes the fields every
 * frame shares. Header bytes 32..127 start at zero, so absent fields are 0.
 */
function allocFrame(body: Uint8Array | string | undefined, allocation: FrameAllocation): Buffer {
  let out: Buffer;
  if (body === undefined) {
    out = allocSized(0, allocation);
  } else if (typeof body === 'string') {
    out = allocSized(Buffer.byteLength(body, 'utf8'), allocation);
    out.write(body, HEADER_SIZE, 'utf8');
  } else {
    out = allocSized(body.length, allocation);
    out.set(body, HEADER_SIZE);
  }
  out.fill(0, Offset.magic, HEADER_SIZE);
  out.writeUInt32LE(MAGIC, Offset.magic);
  out.writeUInt16LE(PROTOCOL_VERSION, Offset.version);
  out.writeUInt32LE(out.length, Offset.size);
  return out;
}

function allocSized(bodyBytes: number, allocation: FrameAllocation): Buffer {
  const sizeBytes = HEADER_SIZE + bodyBytes;
  if (sizeBytes > MAX_SIZE_FIELD) throw new FrameTooLargeError(sizeBytes);
  return allocation === 'exact' ? Buffer.allocUnsafeSlow(sizeBytes) : Buffer.allocUnsafe(sizeBytes);
}

/** Header bytes 96..127, which only replies set. */
function writeReplyCounters(
  out: Buffer,
  fields: { op?: number; commit?: number; timestamp?: bigint; watermark?: number },
): void {
  if (fields.op !== undefined) writeU64Field('op', out, Offset.op, fields.op);
  if (fields.commit !== undefined) writeU64Field('commit', out, Offset.commit, fields.commit);
  if (fields.timestamp !== undefined) writeTimestamp(out, fields.timestamp);
  if (fields.watermark !== undefined) {
    writeU64Field('watermark', out, Offset.watermark, fields.watermark);
  }
}

function writeU8(field: string, out: Buffer, offset: number, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xff) {
    throw new FieldOutOfRangeError(field, value, 'u8');
  }
  out[offset] = value;
}

function writeU16(field: string, out: Buffer, offset: number, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff) {
    throw new FieldOutOfRangeError(field, value, 'u16');
  }
  out.writeUInt16LE(value, offset);
}

function writeU64Field(field: string, out: Buffer, offset: number, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new FieldOutOfRangeError(field, value, 'u64 below 2^53');
  }
  writeU64(out, offset, value);
}

function writeTimestamp(out: Buffer, value: bigint): void {
  if (typeof value !== 'bigint' || value < 0n || value >= U64_END) {
    throw new FieldOutOfRangeError('timestamp', value, 'u64 bigint');
  }
  writeBigU64(out, Offset.timestamp, value);
}

function writeClient(out: Buffer, client: ClientId): void {
  if (!writeValidClientId(out, Offset.client, client)) {
    throw new FieldOutOfRangeError('client', client, 'client id (32 lowercase hex digits)');
  }
}

function writeResumeToken(out: Buffer, token: Uint8Array): void {
  if (token.length !== CHECKSUM_SIZE) {
    throw new ProtocolError(
      'INVALID_RESUME_TOKEN',
      `resumeToken must be ${CHECKSUM_SIZE} bytes, got ${token.length}`,
    );
  }
  // Sixteen byte stores beat TypedArray#set's set-up for so few bytes.
  for (let i = 0; i < CHECKSUM_SIZE; i++) out[Offset.resumeToken + i] = token[i];
}
