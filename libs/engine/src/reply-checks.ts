import * as protocol from '@once/protocol/internal';

const { checksum, checksumInto, writeU64, readU64 } = protocol;

/** Bytes of one checksum (XXH3-128, as on the wire). */
const CHECKSUM_BYTES = 16;
/** One recorded reply in a REPLY_CHECK body: its op (u64 LE), then its checksum. */
const DIGEST_BYTES = 8 + CHECKSUM_BYTES;
/** Where a reply frame holds the checksum of its body (the wire's `checksum_body`). */
const FRAME_CHECKSUM_BODY_OFFSET = 16;

/** One acknowledged reply as a REPLY_CHECK entry records it. */
export interface ReplyDigest {
  readonly op: number;
  /** XXH3-128 of the reply body. */
  readonly checksum: Buffer;
}

/** How many replies a REPLY_CHECK body records; throws {@link ReplyCheckInvalidError} when it is not one. */
export function checkedCount(body: Buffer): number {
  if (body.length < 4) throw new ReplyCheckInvalidError('a reply check has no count');
  const count = body.readUInt32LE(0);
  if (body.length !== 4 + count * DIGEST_BYTES) {
    throw new ReplyCheckInvalidError(
      `a reply check of ${count} replies has ${body.length} bytes, not ${4 + count * DIGEST_BYTES}`,
    );
  }
  return count;
}

/** The op of the last reply a REPLY_CHECK body records (0 when it records none). */
export function lastCheckedOp(body: Buffer): number {
  const count = checkedCount(body);
  return count === 0 ? 0 : readU64(body, 4 + (count - 1) * DIGEST_BYTES);
}

/** The checksum a REPLY_CHECK body records for `op`, as hex; undefined when it records none. */
export function checkedChecksumOf(body: Buffer, op: number): string | undefined {
  const count = checkedCount(body);
  for (let i = 0, at = 4; i < count; i++, at += DIGEST_BYTES) {
    if (readU64(body, at) === op) return body.toString('hex', at + 8, at + DIGEST_BYTES);
  }
  return undefined;
}

/** A reply as apply computed it, while {@link UncheckedReplies} holds it. */
export interface ComputedReply {
  readonly op: number;
  readonly pattern: string;
  /** The reply body. */
  readonly text: string;
  /** The module whose version the handler read. */
  readonly state: string | undefined;
  /** Every state's version in force at `op`. */
  readonly versions: Readonly<Record<string, number>>;
  /** XXH3-128 of `text`. */
  readonly checksum: Buffer;
}

/** A REPLY_CHECK entry's body does not read as one. */
export class ReplyCheckInvalidError extends Error {
  readonly code = 'REPLY_CHECK_INVALID';
}

/**
 * Reads a REPLY_CHECK entry's body: a u32 count, then per reply its op (u64)
 * and the XXH3-128 of its body, ops increasing.
 */
export function decodeReplyChecks(body: Buffer): ReplyDigest[] {
  const count = checkedCount(body);
  const digests: ReplyDigest[] = [];
  for (let i = 0, at = 4; i < count; i++, at += DIGEST_BYTES) {
    digests.push({
      op: readU64(body, at),
      checksum: body.subarray(at + 8, at + DIGEST_BYTES),
    });
  }
  return digests;
}

/**
 * The replies computed by apply and not yet recorded (live) or compared
 * (replay, a follower): a ring of the newest `capacity` in op order, holding
 * what each reply was made from, so nothing is allocated per command.
 *
 * Live, the node journals the new ones in a REPLY_CHECK entry with its next
 * group ({@link encodeNew}); applying that entry, or a leader's on a
 * follower, or any on replay, compares ({@link find}).
 */
export class UncheckedReplies {
  private readonly ops: Float64Array;
  private readonly patterns: Array<string | undefined>;
  private readonly texts: Array<string | undefined>;
  /**
   * Each slot's reply checksum (16 bytes at `slot * 16`), copied from its
   * frame at {@link add} or hashed from its text on first use: the ring
   * keeps no frame alive.
   */
  private readonly checksums: Buffer;
  /** 1 where {@link checksums} holds the slot's checksum already. */
  private readonly hashed: Uint8Array;
  private readonly states: Array<string | undefined>;
  private readonly versions: Array<Readonly<Record<string, number>> | undefined>;
  /** Slots written so far (monotonic); slot `n` lives at `n % capacity`. */
  private written = 0;
  /** Slots already handed to {@link encodeNew}. */
  private encoded = 0;

  constructor(private readonly capacity = 1 << 16) {
    this.ops = new Float64Array(capacity);
    this.patterns = new Array<string | undefined>(capacity);
    this.texts = new Array<string | undefined>(capacity);
    this.checksums = Buffer.alloc(capacity * CHECKSUM_BYTES);
    this.hashed = new Uint8Array(capacity);
    this.states = new Array<string | undefined>(capacity);
    this.versions = new Array<Readonly<Record<string, number>> | undefined>(capacity);
  }

  /** How many replies were added and not yet encoded (live: what the next REPLY_CHECK records). */
  get newCount(): number {
    return Math.min(this.written - this.encoded, this.capacity);
  }

  /**
   * The reply `text` computed for the command `pattern` at `op` (ops
   * increasing); `frame` when it was already encoded (its header holds the
   * body's checksum), `state` the module whose version the handler read,
   * `versions` those in force (a frozen object the applier shares).
   */
  add(
    op: number,
    pattern: string,
    text: string,
    frame: Buffer | undefined,
    state: string | undefined,
    versions: Readonly<Record<string, number>>,
  ): void {
    const slot = this.written % this.capacity;
    this.ops[slot] = op;
    this.patterns[slot] = pattern;
    this.texts[slot] = text;
    if (frame) {
      frame.copy(
        this.checksums,
        slot * CHECKSUM_BYTES,
        FRAME_CHECKSUM_BODY_OFFSET,
        FRAME_CHECKSUM_BODY_OFFSET + CHECKSUM_BYTES,
      );
      this.hashed[slot] = 1;
    } else {
      this.hashed[slot] = 0;
    }
    this.states[slot] = state;
    this.versions[slot] = versions;
    this.written++;
  }

  /** Forgets everything (a snapshot restored, the state reset). */
  clear(): void {
    this.patterns.fill(undefined);
    this.texts.fill(undefined);
    this.hashed.fill(0);
    this.states.fill(undefined);
    this.versions.fill(undefined);
    this.written = 0;
    this.encoded = 0;
  }

  /**
   * Marks every reply up to `op` as recorded (a REPLY_CHECK entry covering
   * them applied): the live node's next REPLY_CHECK starts after them.
   */
  recordedThrough(op: number): void {
    let low = Math.max(this.encoded, this.written - this.capacity);
    let high = this.written;
    // The first slot whose op is above `op`.
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.ops[middle % this.capacity] <= op) low = middle + 1;
      else high = middle;
    }
    if (low > this.encoded) this.encoded = low;
  }

  /**
   * A REPLY_CHECK body recording every reply added since the last call (or
   * undefined when there is none), oldest first. Replies pushed out of the
   * ring before that are not recorded.
   */
  encodeNew(): Buffer | undefined {
    const from = Math.max(this.encoded, this.written - this.capacity);
    const count = this.written - from;
    this.encoded = this.written;
    if (count <= 0) return undefined;
    const body = Buffer.allocUnsafe(4 + count * DIGEST_BYTES);
    body.writeUInt32LE(count, 0);
    let at = 4;
    for (let n = from; n < this.written; n++, at += DIGEST_BYTES) {
      const slot = n % this.capacity;
      writeU64(body, at, this.ops[slot]);
      this.checksumInto(slot, body, at + 8);
    }
    return body;
  }

  /** What the reply at `op` was made from, while the ring holds it. */
  find(op: number): ComputedReply | undefined {
    const index = this.lowerBound(op);
    if (index >= this.written) return undefined;
    const slot = index % this.capacity;
    if (this.ops[slot] !== op) return undefined;
    const sum = Buffer.allocUnsafe(CHECKSUM_BYTES);
    this.checksumInto(slot, sum, 0);
    return {
      op,
      pattern: this.patterns[slot]!,
      text: this.texts[slot]!,
      state: this.states[slot],
      versions: this.versions[slot]!,
      checksum: sum,
    };
  }

  /**
   * Compares every reply a REPLY_CHECK `body` records with the one computed
   * here for its op, while the ring holds it; returns the first op whose
   * reply differs (undefined when none does). Nothing is allocated per reply:
   * a live node applies its own checks, every group.
   */
  firstDifference(body: Buffer): number | undefined {
    const count = checkedCount(body);
    if (count === 0) return undefined;
    // Start at the first op the body records: a scan from the ring's oldest
    // slot would cost the whole ring at every check once it is full.
    let slotIndex = this.lowerBound(readU64(body, 4));
    for (let i = 0, at = 4; i < count; i++, at += DIGEST_BYTES) {
      const op = readU64(body, at);
      while (slotIndex < this.written && this.ops[slotIndex % this.capacity] < op) slotIndex++;
      if (slotIndex >= this.written) break;
      const slot = slotIndex % this.capacity;
      if (this.ops[slot] !== op) continue;
      if (!this.checksumEquals(slot, body, at + 8)) return op;
    }
    return undefined;
  }

  /** The first written index, among those the ring still holds, whose op is `op` or later. */
  private lowerBound(op: number): number {
    let low = Math.max(0, this.written - this.capacity);
    let high = this.written;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.ops[middle % this.capacity] < op) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private checksumEquals(slot: number, body: Buffer, at: number): boolean {
    const from = this.checksumAt(slot);
    const checksums = this.checksums;
    for (let i = 0; i < CHECKSUM_BYTES; i++) {
      if (checksums[from + i] !== body[at + i]) return false;
    }
    return true;
  }

  private checksumInto(slot: number, out: Buffer, at: number): void {
    const from = this.checksumAt(slot);
    this.checksums.copy(out, at, from, from + CHECKSUM_BYTES);
  }

  /** Where the slot's checksum is in {@link checksums}, hashing its text the first time. */
  private checksumAt(slot: number): number {
    const from = slot * CHECKSUM_BYTES;
    if (this.hashed[slot] === 0) {
      checksumInto(Buffer.from(this.texts[slot]!, 'utf8'), this.checksums, from);
      this.hashed[slot] = 1;
    }
    return from;
  }
}

/** XXH3-128 of a reply body text, as a REPLY_CHECK records it. */
export function replyChecksum(text: string): Buffer {
  return checksum(Buffer.from(text, 'utf8'));
}
