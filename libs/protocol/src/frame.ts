import { decodeHeader, type FrameHeader } from './frame-header';
import { ProtocolError } from './protocol-error';
import { HEADER_SIZE } from './wire-constants';

/**
 * One whole frame: its decoded header and its bytes.
 *
 * `raw` may be a zero-copy view into a buffer received from the socket; whoever
 * keeps a frame far longer than the request it carries (a cache, say) should
 * copy `raw` so that the larger receive buffer can be freed.
 */
export interface Frame {
  readonly header: FrameHeader;
  /** Exactly `header.size` bytes; never reused or overwritten by the decoder afterwards. */
  readonly raw: Buffer;
  /** `raw.subarray(128)`. */
  readonly body: Buffer;
}

/**
 * Wraps bytes already known to be one valid frame (journaled requests, cached
 * replies, frames this node encoded) without checking them again.
 * Untrusted bytes go through {@link FrameDecoder} instead.
 */
export function frameFromBytes(raw: Buffer): Frame {
  const header = decodeHeader(raw, 0);
  if (header.size !== raw.length) {
    throw new ProtocolError(
      'SIZE_MISMATCH',
      `header size ${header.size} does not match the ${raw.length} bytes given`,
    );
  }
  return { header, raw, body: raw.subarray(HEADER_SIZE) };
}
