import { ZERO_CHECKSUM, ZERO_CLIENT_ID } from '@once/protocol/internal';
import fc from 'fast-check';
import { decodeEntry, encodeEntry } from './entry-codec';
import { InvalidEntryError } from './invalid-entry.error';
import { type EntryDraft, EntryKind } from './journal-entry';
import { nextTimestamp, stampEntry } from './stamped-entry';

const draft: EntryDraft = {
  kind: EntryKind.Command,
  client: ZERO_CLIENT_ID,
  session: 3,
  request: 4,
  userId: 5,
  requestChecksum: ZERO_CHECKSUM,
  body: Buffer.from('{"pattern":"p","data":1}'),
};

describe('stampEntry', () => {
  it('gives the bytes encodeEntry gives, and an entry that decodes from them', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        (op, ts) => {
          const { entry, encoded } = stampEntry(draft, op, ts);
          expect(encoded.equals(encodeEntry({ ...draft, op, timestamp: ts }))).toBe(true);
          expect(decodeEntry(encoded)).toEqual(entry);
        },
      ),
    );
  });

  it('refuses a timestamp beyond u64 (a broken clock) with InvalidEntryError', () => {
    expect(() => stampEntry(draft, 1, 1n << 64n)).toThrow(InvalidEntryError);
  });

  it('keeps the entry apart from the caller’s buffers', () => {
    const body = Buffer.from('abc');
    const { entry } = stampEntry({ ...draft, body }, 1, 1n);
    body.fill(0);
    expect(Buffer.from(entry.body).toString()).toBe('abc');
  });
});

describe('nextTimestamp', () => {
  it('never goes below the last timestamp', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 63n }),
        fc.bigInt({ min: 0n, max: 2n ** 63n }),
        (now, last) => {
          const next = nextTimestamp(now, last);
          expect(next >= last && next >= (now < last ? last : now)).toBe(true);
        },
      ),
    );
  });
});
