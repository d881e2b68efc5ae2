import { type EntryDraft } from '@once/journal/internal';
import { type EntryKind } from '@once/journal';
import { ZERO_CHECKSUM, ZERO_CLIENT_ID } from '@once/protocol/internal';
import { SYSTEM_USER_ID } from './apply-context';

/**
 * A draft the node journals on its own behalf (BOOT, RELEASE, genesis
 * commands): client 0, no session, the system user, no request checksum.
 * No client waits on these entries, so they carry nothing a reply would echo.
 */
export function systemDraft(kind: EntryKind, body: Buffer): EntryDraft {
  return {
    kind,
    client: ZERO_CLIENT_ID,
    session: 0,
    request: 0,
    userId: SYSTEM_USER_ID,
    requestChecksum: ZERO_CHECKSUM,
    body,
  };
}
