import { EntryKind } from '@once/journal';
import { type EntryDraft } from '@once/journal/internal';
import { type ClientId } from '@once/protocol';
import { ZERO_CHECKSUM, ZERO_CLIENT_ID, checksum } from '@once/protocol/internal';

/** Journal drafts shaped like the gateway's, for driving the engine directly. */

export function registerDraft(client: ClientId, userId: number): EntryDraft {
  const body = Buffer.from(JSON.stringify({ username: `user${userId}`, password: 'secret' }));
  return {
    kind: EntryKind.Register,
    client,
    session: 0,
    request: 0,
    userId,
    requestChecksum: checksum(body),
    body: Buffer.alloc(0),
  };
}

export function commandDraft(
  client: ClientId,
  userId: number,
  session: number,
  request: number,
  pattern: string,
  data: unknown,
): EntryDraft {
  const body = Buffer.from(JSON.stringify({ pattern, data }));
  return {
    kind: EntryKind.Command,
    client,
    session,
    request,
    userId,
    requestChecksum: checksum(body),
    body,
  };
}

export function logoutDraft(
  client: ClientId,
  userId: number,
  session: number,
  request: number,
): EntryDraft {
  return {
    kind: EntryKind.Logout,
    client,
    session,
    request,
    userId,
    requestChecksum: checksum(Buffer.alloc(0)),
    body: Buffer.alloc(0),
  };
}

/** A BOOT draft; without the HTTP key settings its body is what builds before them wrote. */
export function bootDraft(settings: {
  clientsMax: number;
  ring: number;
  sessionTtlMs: number;
  httpKeyRetentionMs?: number;
  httpKeysMax?: number;
}): EntryDraft {
  return {
    kind: EntryKind.Boot,
    client: ZERO_CLIENT_ID,
    session: 0,
    request: 0,
    userId: 0,
    requestChecksum: ZERO_CHECKSUM,
    body: Buffer.from(JSON.stringify(settings)),
  };
}

export function releaseDraft(client: ClientId): EntryDraft {
  return {
    kind: EntryKind.Release,
    client,
    session: 0,
    request: 0,
    userId: 0,
    requestChecksum: ZERO_CHECKSUM,
    body: Buffer.alloc(0),
  };
}
