import { encodeCommandBody, encodeHttpRequestBody } from '@once/engine/internal';
import { EntryKind } from '@once/journal';
import { type JournalEntry } from '@once/journal/internal';
import { ZERO_CHECKSUM, ZERO_CLIENT_ID } from '@once/protocol/internal';
import { type BodyDisclosure, WITHHELD, entryLine, entryView } from './entry-view';
import { REDACTED, TOO_DEEP } from './redact';

const CLIENT = '0123456789abcdef0123456789abcdef';

/** The running node's view: ledger commands declare nothing secret, users.create its password. */
const DECLARED: BodyDisclosure = {
  kind: 'declared',
  sensitive: (pattern) =>
    ({ 'ledger.deposit': [], 'users.create': ['password'], 'vault.put': ['pin'] })[pattern],
};

/** JSON text of arrays nested `depth` deep around `inner`. */
function nested(depth: number, inner = '1'): string {
  return '['.repeat(depth) + inner + ']'.repeat(depth);
}

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
      DECLARED,
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
    const view = entryView(
      entry({ kind: EntryKind.Command, client: ZERO_CLIENT_ID, body }),
      DECLARED,
    );
    expect(view.client).toBe('system');
    expect(view.body).toEqual({ username: 'admin', password: REDACTED });
    expect(entryLine(view)).toMatch(/^op 7 .* COMMAND {2}system users\.create/);
    expect(entryLine(view)).not.toContain('top-secret');
  });

  it('redacts the fields a command declared, whatever their name, and withholds undeclared commands', () => {
    // Given a command that declared `pin`, and one that declared nothing
    const declared = encodeCommandBody({
      pattern: 'vault.put',
      data: { owner: 'ann', pin: '4321', nested: [{ pin: '9876' }] },
    });
    const undeclared = encodeCommandBody({
      pattern: 'billing.card',
      data: { apiKey: 'sk-live-1', cardNumber: '4111111111111111' },
    });

    // When the feed decodes them
    const shown = entryView(entry({ kind: EntryKind.Command, body: declared }), DECLARED);
    const hidden = entryView(entry({ kind: EntryKind.Command, body: undeclared }), DECLARED);

    // Then the declared field is redacted at any depth, the rest shown; nothing of the other
    expect(shown.body).toEqual({ owner: 'ann', pin: REDACTED, nested: [{ pin: REDACTED }] });
    expect(hidden).toMatchObject({ pattern: 'billing.card', body: WITHHELD });
    expect(JSON.stringify(hidden) + entryLine(hidden)).not.toMatch(/sk-live|4111/);
  });

  it('withholds every command body without declarations, and shows them by name with --show-bodies', () => {
    const body = encodeCommandBody({
      pattern: 'users.create',
      data: { username: 'ann', password: 'hunter2' },
    });
    expect(entryView(entry({ kind: EntryKind.Command, body })).body).toBe(WITHHELD);
    expect(entryView(entry({ kind: EntryKind.Command, body }), { kind: 'by-name' }).body).toEqual({
      username: 'ann',
      password: REDACTED,
    });
  });

  it('prints a body nested 100,000 deep, cut at 64 levels, without exhausting the stack', () => {
    // Given a command whose data the journal took at 100,000 levels deep
    const body = Buffer.from(`{"pattern":"ledger.deposit","data":${nested(100_000)}}`);

    // When it is decoded and printed
    const view = entryView(entry({ kind: EntryKind.Command, body }), DECLARED);
    const line = entryLine(view);

    // Then the first 64 levels print and the rest says why it does not
    expect(line).toContain(nested(64, JSON.stringify(TOO_DEEP)));
    expect(JSON.parse(JSON.stringify(view.body))).toEqual(
      JSON.parse(nested(64, JSON.stringify(TOO_DEEP))),
    );
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

  it("decodes an HTTP_REQUEST: its pattern, scope, key and statuses, its data disclosed like a COMMAND's", () => {
    const body = encodeHttpRequestBody({
      scope: 'user 5|POST /vault',
      key: 'k-1',
      pattern: 'vault.put',
      data: { pin: '1234', label: 'home' },
      status: 201,
      refusalStatus: 422,
    });
    const http = (disclosure?: BodyDisclosure) =>
      entryView(
        entry({
          kind: EntryKind.HttpRequest,
          client: ZERO_CLIENT_ID,
          session: 0,
          request: 0,
          body,
        }),
        disclosure,
      );
    expect(http()).toMatchObject({
      kind: 'HTTP_REQUEST',
      client: 'system',
      pattern: 'vault.put',
      body: {
        scope: 'user 5|POST /vault',
        key: 'k-1',
        status: 201,
        refusalStatus: 422,
        data: WITHHELD,
      },
    });
    expect(http(DECLARED).body).toMatchObject({ data: { pin: REDACTED, label: 'home' } });
    const garbage = entryView(entry({ kind: EntryKind.HttpRequest, body: Buffer.from('{}') }));
    expect(garbage).toMatchObject({
      pattern: null,
      body: { undecodable: "2 bytes that are not this kind's JSON" },
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
