import { HEADER_SIZE, Offset } from '@once/protocol/internal';

/**
 * Splits a stream of once frames on their `size` field and checks nothing
 * else: the load generator trusts the node under test, and verifying two
 * checksums per reply would spend the client's CPU, which on a 2-core machine
 * is the server's CPU too.
 *
 * Frames are handed out as (buffer, offset, size) so that no view object is
 * allocated per reply; the bytes are valid only during the callback.
 */
export class FrameSplitter {
  private pending: Buffer | undefined;

  push(chunk: Buffer, onFrame: (bytes: Buffer, offset: number, size: number) => void): void {
    const bytes = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    let offset = 0;
    while (bytes.length - offset >= Offset.size + 4) {
      const size = bytes.readUInt32LE(offset + Offset.size);
      if (size < HEADER_SIZE) throw new Error(`the node sent a frame of size ${size}`);
      if (bytes.length - offset < size) break;
      onFrame(bytes, offset, size);
      offset += size;
    }
    this.pending = offset < bytes.length ? bytes.subarray(offset) : undefined;
  }
}
