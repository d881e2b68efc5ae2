import { type EntryDraft, EntryKind } from '../journal-entry';

/**
 * A COMMAND draft of one client's session 3, numbered `request`, with a small
 * JSON body naming it (or `body` when given): what the journal's own specs
 * append.
 */
export function commandDraft(
  request: number,
  body = `{"pattern":"p","data":${request}}`,
): EntryDraft {
  return {
    kind: EntryKind.Command,
    client: '00000000000000000000000000000abc',
    session: 3,
    request,
    userId: 11,
    requestChecksum: Buffer.alloc(16, 7),
    body: Buffer.from(body),
  };
}
