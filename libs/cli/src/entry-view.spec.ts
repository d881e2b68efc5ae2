import { encodeCommandBody } from '@once/engine';
import { EntryKind, type JournalEntry } from '@once/journal';
import { ZERO_CHECKSUM, ZERO_CLIENT_ID } from '@once/protocol';
import { entryLine, entryView } from './entry-view';
import { REDACTED } from './redact';

const CLIENT = '0123456789abcdef0123456789abcdef';

function entry(fields: Partial<JournalEntry> & Pick<JournalEntry, 'kind' | 'body'>): JournalEntry {
  return {
    op: 7,
    timestamp: 1_700_000_000_123_456_789n,
    client: CLIENT,
    session: 3,
    request: 2,
    userId: 5,
    requestChecksum: ZERO_CHECKSUM,
    ...fields,
  };
}

describe('entryView', () => {
  it('decodes a COMMAND: header fields, journal time, pattern and data', () => {
    const view = entryView(
      entry({
        kind: EntryKind.Command,
        body: encodeCommandBody({ pattern: 'ledger.deposit', data: { account: 'a', amount: 5 } }),
      }),
    );
    expect(view).toEqual({
      op: 7,
      time: '2023-11-14T22:13:20.123Z',
      timestampNs: '1700000000123456789',
      kind: 'COMMAND',
      client: CLIENT,
      session: 3,
      request: 2,
      userId: 5,
      pattern: 'ledger.deposit',
      body: { account: 'a', amount: 5 },
      bodyBytes: expect.any(Number),
    });
    expect(entryLine(view)).toBe(
      `op 7  2023-11-14T22:13:20.123Z  COMMAND  client ${CLIENT} session 3 request 2 user 5 ledger.deposit {"account":"a","amount":5}`,
    );
  });

  it('never shows a REGISTER body, whatever it holds', () => {
    const body = Buffer.from(JSON.stringify({ username: 'ann', password: 'hunter2' }));
    const view = entryView(entry({ kind: EntryKind.Register, body }));
    expect(view.body).toBe(REDACTED);
    expect(JSON.stringify(view) + entryLine(view)).not.toContain('hunter2');
  });

  it('redacts the credentials of a command, and names system entries as such', () => {
    const body = encodeCommandBody({
      pattern: 'users.create',
      data: { username: 'admin', password: 'top-secret' },
    });
    const view = entryView(entry({ kind: EntryKind.Command, client: ZERO_CLIENT_ID, body }));
    expect(view.client).toBe('system');
    expect(view.body).toEqual({ username: 'admin', password: REDACTED });
    expect(entryLine(view)).toMatch(/^op 7 .* COMMAND {2}system users\.create/);
    expect(entryLine(view)).not.toContain('top-secret');
  });

  it('shows a command refused at admission as its refusal, and a body that is not JSON by its size', () => {
    const refused = encodeCommandBody({
      pattern: 'ledger.transfer',
      refusal: { code: 'INSUFFICIENT_FUNDS', message: 'not enough' },
    });
    expect(entryView(entry({ kind: EntryKind.Command, body: refused })).body).toEqual({
      refused: { code: 'INSUFFICIENT_FUNDS', message: 'not enough' },
    });
    const garbage = entryView(entry({ kind: EntryKind.Command, body: Buffer.from([0xff, 1, 2]) }));
    expect(garbage).toMatchObject({
      pattern: null,
      body: { undecodable: expect.stringMatching(/^3 bytes/) },
    });
  });

  it('decodes a BOOT entry as its settings and an empty body as null', () => {
    const boot = Buffer.from(JSON.stringify({ clientsMax: 10, ring: 8, sessionTtlMs: 0 }));
    expect(entryView(entry({ kind: EntryKind.Boot, body: boot }))).toMatchObject({
      kind: 'BOOT',
      body: { clientsMax: 10, ring: 8, sessionTtlMs: 0 },
    });
    expect(entryView(entry({ kind: EntryKind.Logout, body: Buffer.alloc(0) })).body).toBeNull();
  });
});
