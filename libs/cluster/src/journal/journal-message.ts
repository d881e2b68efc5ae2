import { headers, type MsgHdrs } from '@nats-io/nats-core';
import {
  ENTRY_HEADER_BYTES,
  EntryOffset,
  type JournalEntry,
  decodeEntry,
} from '@once/journal/internal';
import { JournalCorruptionError } from '@once/journal';
import { GROUP_MAC_HEADER, type GroupAuthenticator } from './group-authenticator';

/**
 * Message headers of a journal message. `Nats-Msg-Id` (the writer's
 * deduplication id) is set by the publisher, not here.
 */
export const JournalHeader = {
  /** Framing version of the payload; `1` is the only one. */
  format: 'Once-Format',
  /** Op of the first entry in the payload (decimal). */
  firstOp: 'Once-First-Op',
  /** Op of the last entry in the payload (decimal). */
  lastOp: 'Once-Last-Op',
} as const;

/** The framing this build writes and reads. */
export const MESSAGE_FORMAT = '1';

/** The ops a stored message claims to hold, read from its headers alone. */
export interface MessageOps {
  readonly firstOp: number;
  readonly lastOp: number;
}

/**
 * One JetStream message = one group of contiguous entries, the unit of group
 * commit. The payload is the entries' encodings (entry-codec format, the very
 * bytes LevelDB stores as values) back to back in op order; each entry's
 * length is its header plus the u32 body length inside it, so no framing is
 * added and the per-entry checksums cover every byte. The headers repeat the
 * first and last op, so a reader can map a stream sequence to ops (the
 * sequence is not the op: a message holds many) without decoding a payload.
 * `Once-Mac` authenticates the payload at its place: the stream sequence
 * `seq` the group must be stored at and its ops (see {@link GroupAuthenticator}).
 */
export function encodeGroupMessage(
  encodedEntries: readonly Uint8Array[],
  firstOp: number,
  seq: number,
  auth: GroupAuthenticator,
): { payload: Buffer; headers: MsgHdrs } {
  const payload = Buffer.concat(encodedEntries);
  const lastOp = firstOp + encodedEntries.length - 1;
  const messageHeaders = headers();
  messageHeaders.set(JournalHeader.format, MESSAGE_FORMAT);
  messageHeaders.set(JournalHeader.firstOp, String(firstOp));
  messageHeaders.set(JournalHeader.lastOp, String(lastOp));
  messageHeaders.set(GROUP_MAC_HEADER, auth.sign({ seq, firstOp, lastOp }, payload));
  return { payload, headers: messageHeaders };
}

/**
 * The first and last op of stored message `seq`, from its headers. Throws
 * {@link JournalCorruptionError} (at `opHint`, the op the caller was looking
 * for) when they are missing, of another format, or inconsistent.
 */
export function messageOps(
  seq: number,
  messageHeaders: MsgHdrs | undefined,
  opHint: number,
): MessageOps {
  const format = messageHeaders?.get(JournalHeader.format) ?? '';
  if (format !== MESSAGE_FORMAT) {
    throw new JournalCorruptionError(
      opHint,
      `stream message ${seq} has journal format ${JSON.stringify(format)}, not ${MESSAGE_FORMAT}`,
    );
  }
  const firstOp = parseOp(messageHeaders?.get(JournalHeader.firstOp));
  const lastOp = parseOp(messageHeaders?.get(JournalHeader.lastOp));
  if (firstOp === undefined || lastOp === undefined || lastOp < firstOp) {
    throw new JournalCorruptionError(
      firstOp ?? opHint,
      `stream message ${seq} has no valid ${JournalHeader.firstOp}/${JournalHeader.lastOp} headers`,
    );
  }
  return { firstOp, lastOp };
}

/**
 * Entries read out of one stream message, with the bytes each was decoded
 * from (views of the message, verified by the entry's checksum): a follower
 * stores these in its local copy as they are instead of encoding each entry
 * again.
 */
export interface StoredEntries {
  readonly entries: JournalEntry[];
  /** `encoded[i]` is the encoding of `entries[i]` as the stream stored it. */
  readonly encoded: Buffer[];
}

/**
 * Decodes and verifies stored message `seq`: its headers, its MAC under the
 * cluster key (`auth`: throws `JournalGroupUnverifiedError` before reading
 * a byte of a message that does not verify), then every entry (checksum,
 * kind, op) in turn, and that the entries fill the payload exactly.
 * `expectedFirstOp`, when given, is the op the message must start with (the
 * one after the previous message's last). Throws {@link JournalCorruptionError}
 * naming the first bad or missing op. The entries and their encodings are
 * views of `data`.
 */
export function decodeGroupMessage(
  seq: number,
  data: Uint8Array,
  messageHeaders: MsgHdrs | undefined,
  auth: GroupAuthenticator,
  expectedFirstOp?: number,
): StoredEntries {
  const { firstOp, lastOp } = messageOps(seq, messageHeaders, expectedFirstOp ?? 1);
  auth.verify({ seq, firstOp, lastOp }, data, messageHeaders?.get(GROUP_MAC_HEADER));
  if (expectedFirstOp !== undefined && firstOp !== expectedFirstOp) {
    throw new JournalCorruptionError(
      expectedFirstOp,
      firstOp > expectedFirstOp
        ? `it is missing (stream message ${seq} starts at op ${firstOp})`
        : `stream message ${seq} starts at op ${firstOp}, repeating earlier ops`,
    );
  }
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const entries = new Array<JournalEntry>(lastOp - firstOp + 1);
  const encodings = new Array<Buffer>(entries.length);
  let offset = 0;
  for (let op = firstOp; op <= lastOp; op++) {
    const left = bytes.byteLength - offset;
    if (left < ENTRY_HEADER_BYTES) {
      throw new JournalCorruptionError(
        op,
        `stream message ${seq} ends ${left} bytes into the entry, before its ${ENTRY_HEADER_BYTES}-byte header`,
      );
    }
    const length = ENTRY_HEADER_BYTES + bytes.readUInt32LE(offset + EntryOffset.bodyLength);
    if (length > left) {
      throw new JournalCorruptionError(
        op,
        `its body length says ${length} bytes, stream message ${seq} holds ${left} more`,
      );
    }
    const encoded = bytes.subarray(offset, offset + length);
    entries[op - firstOp] = decodeEntry(encoded, op);
    encodings[op - firstOp] = encoded;
    offset += length;
  }
  if (offset !== bytes.byteLength) {
    throw new JournalCorruptionError(
      firstOp,
      `stream message ${seq} holds ${bytes.byteLength - offset} bytes after op ${lastOp}, its last`,
    );
  }
  return { entries, encoded: encodings };
}

const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;

/** A header's op, or `undefined` unless it is a canonical decimal safe integer >= 1. */
function parseOp(text: string | undefined): number | undefined {
  if (text === undefined || !DECIMAL.test(text)) return undefined;
  const op = Number(text);
  return Number.isSafeInteger(op) && op >= 1 ? op : undefined;
}
