import { ZERO_CHECKSUM, withRequestChecksum } from '@once/protocol/internal';

/** Offset of a reply's `request_checksum` (PROTOCOL.md: header bytes 80..95). */
const REQUEST_CHECKSUM_OFFSET = 80;

/**
 * A cached reply as sent again: as cached, unless its entry kept no body
 * checksum (a secret body): then with the retry's `checksum_body` in its
 * `request_checksum`, as PROTOCOL.md has every reply carry.
 */
export function answeringChecksum(reply: Buffer, checksumBody: Uint8Array): Buffer {
  const kept = ZERO_CHECKSUM.compare(
    reply,
    REQUEST_CHECKSUM_OFFSET,
    REQUEST_CHECKSUM_OFFSET + ZERO_CHECKSUM.length,
  );
  return kept === 0 ? withRequestChecksum(reply, checksumBody) : reply;
}
