import { checksumMatches, CHECKSUM_SIZE, EMPTY_CHECKSUM } from './checksum';
import { type Frame } from './frame';
import { decodeHeader } from './frame-header';
import { ProtocolError } from './protocol-error';
import {
  DEFAULT_MAX_FRAME_BYTES,
  HEADER_SIZE,
  MAGIC,
  Offset,
  PROTOCOL_VERSION,
  Status,
} from './wire-constants';

export interface FrameDecoderOptions {
  /** Largest accepted `size` (header + body), in bytes: the node's `max_frame`. */
  maxFrameBytes?: number;
}

/** What {@link FrameDecoder.next} found at the front of the stream. */
export type DecodeResult =
  | { kind: 'frame'; frame: Frame }
  | { kind: 'error'; status: Status.BadFrame | Status.VersionUnsupported; message: string };

/*
 * Progress of the checks on the frame at the front of the stream. PROTOCOL.md
 * orders them magic, version, size, checksum, checksum_body; each runs exactly
 * once, as soon as the bytes it reads have arrived, so a stream of garbage is
 * refused after 36 bytes and an oversized frame before its body is buffered.
 */
const CHECKED_NOTHING = 0;
const CHECKED_MAGIC = 1;
const CHECKED_VERSION = 2;
const CHECKED_SIZE = 3;
const CHECKED_HEADER = 4;

/** Bytes that must be buffered before the next check can run, by progress. */
const BYTES_FOR_NEXT_CHECK = [
  Offset.magic + 4,
  Offset.version + 2,
  Offset.size + 4,
  HEADER_SIZE,
] as const;

/** Chunk slots consumed before the chunk list is compacted. */
const COMPACT_AFTER_CHUNKS = 1024;

const NO_BYTES = Buffer.alloc(0);

/**
 * Splits the byte stream of one connection into checked frames.
 *
 * Chunks are queued as pushed, never concatenated: a frame lying inside one
 * chunk is returned as a zero-copy view of it, and a frame spanning chunks is
 * copied once into its own buffer. Pushed chunks must therefore not be
 * modified afterwards (Node's socket `data` buffers never are).
 *
 * The first failed check poisons the decoder for good: PROTOCOL.md closes the
 * connection then, since a stream that lost its framing cannot be trusted again.
 */
export class FrameDecoder {
  /** Largest accepted `size`, in bytes. */
  readonly maxFrameBytes: number;

  /** Chunks not yet fully consumed start at `chunks[head]`, byte `headOffset`. */
  private chunks: Buffer[] = [];
  private head = 0;
  private headOffset = 0;
  private buffered = 0;
  private checked = CHECKED_NOTHING;
  /** `size` of the frame at the front; meaningful once `checked >= CHECKED_SIZE`. */
  private frameBytes = 0;
  private poisoned = false;
  /** Holds a header that spans chunks while it is checked; never handed out. */
  private readonly headerScratch = Buffer.allocUnsafe(HEADER_SIZE);

  constructor(options: FrameDecoderOptions = {}) {
    const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    if (!Number.isSafeInteger(maxFrameBytes) || maxFrameBytes < HEADER_SIZE) {
      throw new ProtocolError(
        'INVALID_OPTION',
        `maxFrameBytes must be an integer of at least ${HEADER_SIZE}, got ${maxFrameBytes}`,
      );
    }
    this.maxFrameBytes = maxFrameBytes;
  }

  /** Bytes received and not yet returned as frames. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  /**
   * True when the buffered bytes end inside a frame that is not complete yet:
   * the state a slow or stalled peer leaves the connection in.
   */
  get hasPartialFrame(): boolean {
    if (this.buffered === 0) return false;
    if (this.checked >= CHECKED_SIZE) return this.buffered < this.frameBytes;
    if (this.buffered < Offset.size + 4) return true;
    const sizeBytes = this.peek(Offset.size + 4).readUInt32LE(Offset.size);
    return this.buffered < Math.max(sizeBytes, HEADER_SIZE);
  }

  /** Queues bytes received from the peer. Ignored once the decoder is poisoned. */
  push(chunk: Buffer): void {
    if (this.poisoned || chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /**
   * The next frame, the first failed check, or `undefined` when more bytes are
   * needed. After an error every call returns `undefined`.
   */
  next(): DecodeResult | undefined {
    if (this.poisoned) return undefined;
    if (this.checked < CHECKED_HEADER) {
      const failure = this.checkHeader();
      if (this.checked < CHECKED_HEADER) return failure;
    }
    if (this.buffered < this.frameBytes) return undefined;

    const raw = this.take(this.frameBytes);
    this.checked = CHECKED_NOTHING;
    // One view of the body serves the check and the frame.
    const body = raw.subarray(HEADER_SIZE);
    const bodyMatches =
      raw.length === HEADER_SIZE
        ? EMPTY_CHECKSUM.compare(raw, Offset.checksumBody, Offset.checksumBody + CHECKSUM_SIZE) ===
          0
        : checksumMatches(body, raw, Offset.checksumBody);
    if (!bodyMatches) return this.fail(Status.BadFrame, 'body checksum mismatch');
    return { kind: 'frame', frame: { header: decodeHeader(raw, 0), raw, body } };
  }

  /**
   * Runs every header check whose bytes have arrived and that has not run yet.
   * Returns the failure, if any; `checked` records the progress.
   */
  private checkHeader(): DecodeResult | undefined {
    const available = this.buffered;
    if (available < BYTES_FOR_NEXT_CHECK[this.checked]) return undefined;
    const header = this.peek(Math.min(available, HEADER_SIZE));

    if (this.checked === CHECKED_NOTHING) {
      if (header.readUInt32LE(Offset.magic) !== MAGIC) {
        return this.fail(Status.BadFrame, 'bad magic');
      }
      this.checked = CHECKED_MAGIC;
      if (available < BYTES_FOR_NEXT_CHECK[CHECKED_MAGIC]) return undefined;
    }
    if (this.checked === CHECKED_MAGIC) {
      const version = header.readUInt16LE(Offset.version);
      if (version !== PROTOCOL_VERSION) {
        return this.fail(
          Status.VersionUnsupported,
          `version ${version} unsupported (this node serves ${PROTOCOL_VERSION})`,
        );
      }
      this.checked = CHECKED_VERSION;
      if (available < BYTES_FOR_NEXT_CHECK[CHECKED_VERSION]) return undefined;
    }
    if (this.checked === CHECKED_VERSION) {
      const sizeBytes = header.readUInt32LE(Offset.size);
      if (sizeBytes < HEADER_SIZE) {
        return this.fail(Status.BadFrame, `size ${sizeBytes} below ${HEADER_SIZE}`);
      }
      if (sizeBytes > this.maxFrameBytes) {
        return this.fail(
          Status.BadFrame,
          `size ${sizeBytes} above max_frame ${this.maxFrameBytes}`,
        );
      }
      this.frameBytes = sizeBytes;
      this.checked = CHECKED_SIZE;
      if (available < BYTES_FOR_NEXT_CHECK[CHECKED_SIZE]) return undefined;
    }
    if (!checksumMatches(header.subarray(Offset.checksumBody, HEADER_SIZE), header, 0)) {
      return this.fail(Status.BadFrame, 'header checksum mismatch');
    }
    this.checked = CHECKED_HEADER;
    return undefined;
  }

  /** The first `length` buffered bytes (`length <= HEADER_SIZE`), not consumed. */
  private peek(length: number): Buffer {
    const first = this.chunks[this.head];
    if (first.length - this.headOffset >= length) {
      return first.subarray(this.headOffset, this.headOffset + length);
    }
    let written = 0;
    let index = this.head;
    let offset = this.headOffset;
    while (written < length) {
      const chunk = this.chunks[index];
      const count = Math.min(chunk.length - offset, length - written);
      chunk.copy(this.headerScratch, written, offset, offset + count);
      written += count;
      index++;
      offset = 0;
    }
    return this.headerScratch.subarray(0, length);
  }

  /** Consumes the first `length` buffered bytes: a view if they lie in one chunk, else one copy. */
  private take(length: number): Buffer {
    const first = this.chunks[this.head];
    let out: Buffer;
    if (first.length - this.headOffset >= length) {
      out = first.subarray(this.headOffset, this.headOffset + length);
      this.advance(first, length);
    } else {
      out = Buffer.allocUnsafe(length);
      let written = 0;
      while (written < length) {
        const chunk = this.chunks[this.head];
        const count = Math.min(chunk.length - this.headOffset, length - written);
        chunk.copy(out, written, this.headOffset, this.headOffset + count);
        written += count;
        this.advance(chunk, count);
      }
    }
    this.buffered -= length;
    return out;
  }

  /** Moves past `count` bytes of the head chunk `chunk`, releasing it when used up. */
  private advance(chunk: Buffer, count: number): void {
    this.headOffset += count;
    if (this.headOffset < chunk.length) return;
    this.chunks[this.head] = NO_BYTES;
    this.head++;
    this.headOffset = 0;
    if (this.head === this.chunks.length) {
      this.chunks.length = 0;
      this.head = 0;
    } else if (this.head >= COMPACT_AFTER_CHUNKS && this.head * 2 >= this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  private fail(status: Status.BadFrame | Status.VersionUnsupported, message: string): DecodeResult {
    this.poisoned = true;
    this.chunks = [];
    this.head = 0;
    this.headOffset = 0;
    this.buffered = 0;
    return { kind: 'error', status, message };
  }
}
