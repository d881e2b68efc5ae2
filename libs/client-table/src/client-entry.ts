import { type ClientId } from '@once/protocol';
import { type CachedReply, type ReplyEncoder, type ReplyOwnership } from './cached-reply';

/**
 * A session: one client id's row of the client table, as callers see it (read-only).
 *
 * Entries are live: the table updates a session's entry in place when a reply commits
 * (the hot path), so a caller that needs a value across an await copies it.
 *
 * Invariants (asserted where they are made, checked again by restore):
 * - `1 <= epoch <= latestCommitOp`;
 * - `replies.length <= ring`, and `replies.length >= 1` when `watermark > 0` (the newest
 *   reply is never dropped, since `ring >= 1`);
 * - `replies[i].request === watermark - replies.length + 1 + i`: the ring holds the
 *   last committed requests, consecutive, oldest first, ending at `watermark`;
 * - `watermarkChecksum` is the newest reply's `requestChecksum`, or ZERO_CHECKSUM when
 *   `watermark === 0`.
 */
export interface ClientEntry {
  readonly client: ClientId;
  /** The user that registered the session; only that user may resume it. */
  readonly userId: number;
  /** Op of the REGISTER that last (re)bound the session. */
  readonly epoch: number;
  /** Highest committed request number (0 before the first). */
  readonly watermark: number;
  /** `requestChecksum` of the watermark's request (ZERO_CHECKSUM when watermark = 0). */
  readonly watermarkChecksum: Buffer;
  /** Op of the latest REGISTER or reply committed for this entry: the eviction order. */
  readonly latestCommitOp: number;
  /** Journal timestamp (ns since the Unix epoch) of `latestCommitOp`: the expiry order. */
  readonly latestCommitTimestamp: bigint;
  /** Cached replies, oldest first, at most `ring`. */
  readonly replies: readonly CachedReply[];
}

/**
 * The ring of a session that has no cached reply. Shared by every such entry so that an
 * idle session costs no array of its own.
 */
export const NO_REPLIES: readonly CachedReply[] = Object.freeze([]);

/** The table's own, writable view of an entry. */
export type MutableClientEntry = { -readonly [K in keyof ClientEntry]: ClientEntry[K] };

/**
 * Builds an entry. Every entry goes through here, so all of them share one hidden
 * class (one property order), which keeps them small and property reads monomorphic.
 */
export function createClientEntry(fields: ClientEntry): MutableClientEntry {
  return {
    client: fields.client,
    userId: fields.userId,
    epoch: fields.epoch,
    watermark: fields.watermark,
    watermarkChecksum: fields.watermarkChecksum,
    latestCommitOp: fields.latestCommitOp,
    latestCommitTimestamp: fields.latestCommitTimestamp,
    replies: fields.replies,
  };
}

/**
 * A cached reply that owns its bytes: the reply frame is copied into one exact-size
 * allocation outside Node's shared 8 KiB pool, and the checksum is an own copy.
 *
 * Why copy: a cached reply lives as long as its session. Keeping the caller's buffers
 * would let a 16-byte checksum sliced from a journal read (or a small reply sliced from
 * the pool) pin the whole larger buffer for that long, and would let a caller that reuses
 * its buffers change bytes the table promises to resend unchanged.
 *
 * Unless the caller hands the reply over (`'handed-over'`: it promises never to change
 * the bytes again) and the reply already is one exact-size allocation of its own: then it
 * is kept as it is, which saves the applier a copy of every reply it commits.
 *
 * Given an encoder instead of bytes (replay caches thousands of replies per session that
 * the ring drops again before anyone asks), the frame is encoded on first read only.
 */
class StoredReply implements CachedReply {
  readonly requestChecksum: Buffer;
  #bytes: Buffer | undefined;
  #encode: ReplyEncoder | undefined;

  constructor(
    readonly request: number,
    requestChecksum: Uint8Array,
    reply: Uint8Array | ReplyEncoder,
    ownership: ReplyOwnership,
  ) {
    this.requestChecksum = Buffer.allocUnsafe(requestChecksum.length);
    this.requestChecksum.set(requestChecksum);
    if (typeof reply === 'function') this.#encode = reply;
    else
      this.#bytes = ownership === 'handed-over' && isWholeBuffer(reply) ? reply : ownedCopy(reply);
  }

  get reply(): Buffer {
    if (this.#bytes === undefined) {
      this.#bytes = ownedCopy(this.#encode!());
      this.#encode = undefined;
    }
    return this.#bytes;
  }
}

/**
 * True when `bytes` is a Buffer spanning its whole ArrayBuffer: keeping it
 * pins nothing else (a slice of Node's shared pool never is one).
 */
function isWholeBuffer(bytes: Uint8Array): bytes is Buffer {
  return (
    Buffer.isBuffer(bytes) && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
  );
}

function ownedCopy(bytes: Uint8Array): Buffer {
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  copy.set(bytes);
  return copy;
}

export function createCachedReply(
  request: number,
  requestChecksum: Uint8Array,
  reply: Uint8Array | ReplyEncoder,
  ownership: ReplyOwnership = 'copied',
): CachedReply {
  return new StoredReply(request, requestChecksum, reply, ownership);
}
