/**
 * One committed request's reply, kept so that a retry under the same request number is
 * answered byte for byte as first sent (PROTOCOL.md, "COMMAND").
 *
 * The table copies both buffers when it caches them and hands out its own copies: nobody
 * may write to them. `reply` is opaque to the table: it is the exact frame to resend.
 * A reply committed with an encoder (during replay) is encoded when first read.
 */
export interface CachedReply {
  /** The request number this reply answers. */
  readonly request: number;
  /** `checksum_body` of the request (16 bytes): a retry with other bytes is a conflict. */
  readonly requestChecksum: Buffer;
  /** The reply frame, header and body, exactly as first sent. */
  readonly reply: Buffer;
}

/** Encodes a reply frame on demand: a deterministic function of the entry it answers. */
export type ReplyEncoder = () => Uint8Array;

/**
 * Who owns the bytes of a reply given to the table. `'copied'` (the default):
 * the caller keeps its buffer and the table caches a copy. `'handed-over'`:
 * the caller gives the buffer up and never changes it again, so the table may
 * keep it as it is (when it is an exact-size buffer of its own; otherwise it
 * still copies, see createCachedReply).
 */
export type ReplyOwnership = 'copied' | 'handed-over';
