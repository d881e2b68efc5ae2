import { ZERO_CHECKSUM, ZERO_CLIENT_ID } from '@once/protocol/internal';
import fc from 'fast-check';
import { decodeEntry, ENTRY_HEADER_BYTES, EntryOffset, encodeEntry } from './entry-codec';
import { InvalidEntryError } from './invalid-entry.error';
import { JournalCorruptionError } from './journal-corruption.error';
import { type EntryDraft, EntryKind, type JournalEntry } from './journal-entry';

const U64_MAX = (1n << 64n) - 1n;

const draftArbitrary: fc.Arbitrary<EntryDraft> = fc.record({
  kind: fc.constantFrom(
    EntryKind.Register,
    EntryKind.Logout,
    EntryKind.Command,
    EntryKind.Release,
    EntryKind.Boot,
  ),
  client: fc
    .uint8Array({ minLength: 16, maxLength: 16 })
    .map((bytes) => Buffer.from(bytes).toString('hex')),
  session: fc.maxSafeNat(),
  request: fc.maxSafeNat(),
  userId: fc.integer({ min: 0, max: 0xffff_ffff }),
  requestChecksum: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b)),
  body: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
});

const entryArbitrary: fc.Arbitrary<JournalEntry> = fc
  .tuple(
    draftArbitrary,
    fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    fc.bigInt(0n, U64_MAX),
  )
  .map(([draft, op, timestamp]) => ({ ...draft, op, timestamp }));

function sampleEntry(overrides: Partial<JournalEntry> = {}): JournalEntry {
  return {
    kind: EntryKind.Command,
    client: '0123456789abcdef0123456789abcdef',
    session: 7,
    request: 3,
    userId: 42,
    requestChecksum: Buffer.alloc(16, 0xab),
    body: Buffer.from('{"pattern":"p","data":1}'),
    op: 1234,
    timestamp: 1_700_000_000_123_456_789n,
    ...overrides,
  };
}

function corruptionOf(action: () => unknown): JournalCorruptionError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(JournalCorruptionError);
    return error as JournalCorruptionError;
  }
  throw new Error('expected a JournalCorruptionError, nothing was thrown');
}

describe('entry codec', () => {
  it('round-trips every valid entry', () => {
    fc.assert(
      fc.property(entryArbitrary, (entry) => {
        const bytes = encodeEntry(entry);
        expect(bytes.byteLength).toBe(ENTRY_HEADER_BYTES + entry.body.byteLength);
        expect(decodeEntry(bytes, entry.op)).toEqual(entry);
        expect(decodeEntry(bytes)).toEqual(entry);
      }),
      { numRuns: 300 },
    );
  });

  it('detects every single-byte corruption and names the op', () => {
    fc.assert(
      fc.property(
        entryArbitrary,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (entry, position, mask) => {
          const bytes = encodeEntry(entry);
          const index = position % bytes.byteLength;
          bytes[index] ^= mask;
          expect(corruptionOf(() => decodeEntry(bytes, entry.op))).toMatchObject({
            code: 'JOURNAL_CORRUPT',
            op: entry.op,
          });
          const withoutExpectedOp = corruptionOf(() => decodeEntry(bytes));
          expect(withoutExpectedOp.code).toBe('JOURNAL_CORRUPT');
          if (index < EntryOffset.op || index >= EntryOffset.op + 8) {
            expect(withoutExpectedOp.op).toBe(entry.op);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('detects truncated and extended entries', () => {
    fc.assert(
      fc.property(entryArbitrary, fc.nat(), (entry, cut) => {
        const bytes = encodeEntry(entry);
        const truncated = bytes.subarray(0, cut % bytes.byteLength);
        expect(corruptionOf(() => decodeEntry(truncated, entry.op)).op).toBe(entry.op);
        const extended = Buffer.concat([bytes, Buffer.from([0])]);
        expect(corruptionOf(() => decodeEntry(extended, entry.op)).op).toBe(entry.op);
      }),
      { numRuns: 200 },
    );
  });

  it('names the op in the message', () => {
    const bytes = encodeEntry(sampleEntry());
    bytes[EntryOffset.body] ^= 1;
    expect(() => decodeEntry(bytes, 1234)).toThrow(
      'journal entry at op 1234 is corrupt: checksum mismatch',
    );
  });

  it('rejects a valid entry stored under another op', () => {
    const bytes = encodeEntry(sampleEntry({ op: 5 }));
    const error = corruptionOf(() => decodeEntry(bytes, 6));
    expect(error.op).toBe(6);
    expect(error.message).toContain('stored op is 5');
  });

  it('lays fields out as documented (little-endian, client as on the wire)', () => {
    const entry = sampleEntry({ client: '000102030405060708090a0b0c0d0e0f' });
    const bytes = encodeEntry(entry);
    expect(bytes.readBigUInt64LE(EntryOffset.op)).toBe(1234n);
    expect(bytes.readBigUInt64LE(EntryOffset.timestamp)).toBe(entry.timestamp);
    // u128, low 64 bits first: the least significant byte comes first.
    expect(bytes[EntryOffset.client]).toBe(0x0f);
    expect(bytes[EntryOffset.client + 15]).toBe(0x00);
    expect(bytes.readBigUInt64LE(EntryOffset.session)).toBe(7n);
    expect(bytes.readBigUInt64LE(EntryOffset.request)).toBe(3n);
    expect(bytes.readUInt32LE(EntryOffset.userId)).toBe(42);
    expect(bytes[EntryOffset.kind]).toBe(EntryKind.Command);
    expect([...bytes.subarray(EntryOffset.reserved, EntryOffset.bodyLength)]).toEqual([0, 0, 0]);
    expect(bytes.readUInt32LE(EntryOffset.bodyLength)).toBe(entry.body.byteLength);
  });

  it('decodes without copying, from a Buffer or any Uint8Array', () => {
    const bytes = encodeEntry(sampleEntry());
    const decoded = decodeEntry(bytes, 1234);
    expect(decoded.body.buffer).toBe(bytes.buffer);
    expect(decoded.requestChecksum.buffer).toBe(bytes.buffer);
    const plain = new Uint8Array(bytes);
    expect(decodeEntry(plain, 1234)).toEqual(sampleEntry());
  });

  it('encodes system entries (zero client, zero checksum, empty body)', () => {
    const entry = sampleEntry({
      kind: EntryKind.Boot,
      client: ZERO_CLIENT_ID,
      session: 0,
      request: 0,
      userId: 0,
      requestChecksum: ZERO_CHECKSUM,
      body: Buffer.alloc(0),
    });
    expect(decodeEntry(encodeEntry(entry), entry.op)).toEqual(entry);
  });

  it.each<[string, Partial<JournalEntry>]>([
    ['kind', { kind: 4 as EntryKind }],
    ['client', { client: 'ABCDEF0123456789abcdef0123456789' }],
    ['client', { client: 'abc' }],
    ['session', { session: -1 }],
    ['request', { request: 1.5 }],
    ['request', { request: Number.MAX_SAFE_INTEGER + 1 }],
    ['userId', { userId: 2 ** 32 }],
    ['requestChecksum', { requestChecksum: Buffer.alloc(15) }],
    ['body', { body: 'text' as unknown as Buffer }],
    ['op', { op: 0 }],
    ['timestamp', { timestamp: 1n << 64n }],
  ])('refuses an invalid %s with INVALID_ENTRY', (field, overrides) => {
    let thrown: unknown;
    try {
      encodeEntry(sampleEntry(overrides));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidEntryError);
    expect(thrown).toBeInstanceOf(TypeError);
    expect(thrown).toMatchObject({ code: 'INVALID_ENTRY', field });
  });
});
