import { CHECKSUM_SIZE, ZERO_CHECKSUM } from '@once/protocol/internal';
import { isClientId } from '@once/protocol';
import { type CachedReply } from './cached-reply';
import { type ClientEntry } from './client-entry';

/** The largest timestamp an entry can hold: a u64, as on the journal. */
export const MAX_TIMESTAMP = (1n << 64n) - 1n;

/**
 * The invariants of {@link ClientEntry} that its numbers alone decide, as the message of the
 * first one broken, or undefined when all hold. `ring` is the table's, or undefined where it
 * is not known yet (a per-entry record is decoded before the table's header is read; the
 * table checks the ring when the entry joins it).
 *
 * One place for every decoder of entries (the table snapshot, the per-entry record, the
 * rebuild from records), so none of them accepts an entry another would refuse. Callers
 * check these before they read the replies: a reply count is then known to be sane.
 */
export function entryNumbersProblem(
  epoch: number,
  latestCommitOp: number,
  watermark: number,
  replyCount: number,
  ring: number | undefined,
): string | undefined {
  if (epoch < 1) return 'epoch 0';
  if (latestCommitOp < epoch) return 'latestCommitOp < epoch';
  if (ring !== undefined && replyCount > ring) {
    return `${replyCount} replies exceed ring ${ring}`;
  }
  if (replyCount > watermark) return 'more replies than requests';
  if (watermark > 0 && replyCount === 0) return 'watermark without reply';
  return undefined;
}

/**
 * Every invariant of {@link ClientEntry} (see there), for an entry built elsewhere: the
 * fields' types and ranges, {@link entryNumbersProblem}, the ring's request numbers
 * (consecutive, oldest first, ending at the watermark), 16-byte checksums, and the
 * watermark's checksum (the newest reply's, or ZERO_CHECKSUM with no reply). Returns the
 * first broken as a message, or undefined. Decoders that derive the request numbers and
 * the watermark's checksum cannot break those and need only the numbers' check.
 */
export function entryProblem(entry: ClientEntry, ring: number | undefined): string | undefined {
  if (typeof entry !== 'object' || entry === null) return 'not an entry';
  if (!isClientId(entry.client)) return `client ${String(entry.client)} is not a client id`;
  for (const field of ['userId', 'epoch', 'watermark', 'latestCommitOp'] as const) {
    const value = entry[field];
    if (!Number.isSafeInteger(value) || value < 0) {
      return `${field} ${String(value)} is not an integer in 0..2^53 - 1`;
    }
  }
  const timestamp = entry.latestCommitTimestamp;
  if (typeof timestamp !== 'bigint' || timestamp < 0n || timestamp > MAX_TIMESTAMP) {
    return `latestCommitTimestamp ${String(timestamp)} is not a u64`;
  }
  const replies: unknown = entry.replies;
  if (!Array.isArray(replies)) return 'replies is not an array';
  return ringProblem(entry, replies as readonly CachedReply[], ring);
}

/** {@link entryProblem}'s checks of the numbers and the ring, once the ring is an array. */
function ringProblem(
  entry: ClientEntry,
  replies: readonly CachedReply[],
  ring: number | undefined,
): string | undefined {
  const numbers = entryNumbersProblem(
    entry.epoch,
    entry.latestCommitOp,
    entry.watermark,
    replies.length,
    ring,
  );
  if (numbers !== undefined) return numbers;
  const first = entry.watermark - replies.length + 1;
  for (let index = 0; index < replies.length; index++) {
    const cached: CachedReply | null = replies[index];
    if (typeof cached !== 'object' || cached === null) return `reply ${index} is not a reply`;
    if (cached.request !== first + index) {
      return `ring out of sequence: reply ${index} answers request ${cached.request}, not ${first + index}`;
    }
    if (
      !Buffer.isBuffer(cached.requestChecksum) ||
      cached.requestChecksum.length !== CHECKSUM_SIZE
    ) {
      return `reply to request ${cached.request}: requestChecksum is not 16 bytes`;
    }
  }
  const expected =
    replies.length === 0 ? ZERO_CHECKSUM : replies[replies.length - 1].requestChecksum;
  if (!Buffer.isBuffer(entry.watermarkChecksum) || !expected.equals(entry.watermarkChecksum)) {
    return replies.length === 0
      ? 'watermarkChecksum is not zero without a reply'
      : "watermarkChecksum is not the newest reply's requestChecksum";
  }
  return undefined;
}
