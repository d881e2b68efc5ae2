import { EntryKind, JournalCorruptionError, encodeEntry, type JournalEntry } from '@once/journal';
import { JournalHeader, decodeGroupMessage, encodeGroupMessage } from './journal-message';

function entry(op: number, body: string): JournalEntry {
  return {
    kind: EntryKind.Command,
    client: '0000000000000000000000000000beef',
    session: 2,
    request: op,
    userId: 7,
    requestChecksum: Buffer.alloc(16, 3),
    body: Buffer.from(body),
    op,
    timestamp: 1_700_000_000_000_000_000n + BigInt(op),
  };
}

/** A group of ops `firstOp`.. with the given bodies, as published. */
function group(firstOp: number, bodies: string[]) {
  const encoded = bodies.map((body, i) => encodeEntry(entry(firstOp + i, body)));
  return { encoded, ...encodeGroupMessage(encoded, firstOp) };
}

function corruption(run: () => unknown): JournalCorruptionError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(JournalCorruptionError);
    return error as JournalCorruptionError;
  }
  throw new Error('expected a JournalCorruptionError');
}

describe('the journal message of a group', () => {
  it('is the entries encoded back to back, with the first and last op in headers', () => {
    const { encoded, payload, headers } = group(41, ['a', '', 'ccc']);
    expect(payload.equals(Buffer.concat(encoded))).toBe(true);
    expect(headers.get(JournalHeader.firstOp)).toBe('41');
    expect(headers.get(JournalHeader.lastOp)).toBe('43');
    expect(headers.get(JournalHeader.format)).toBe('1');
  });

  it('decodes to the very entries, each a view of the message, with the bytes each was read from', () => {
    const { payload, headers, encoded: written } = group(41, ['a', '', 'ccc']);
    const { entries, encoded } = decodeGroupMessage(9, payload, headers, 41);
    expect(entries.map((e) => [e.op, e.body.toString(), e.timestamp])).toEqual([
      [41, 'a', 1_700_000_000_000_000_041n],
      [42, '', 1_700_000_000_000_000_042n],
      [43, 'ccc', 1_700_000_000_000_000_043n],
    ]);
    expect(entries[2].body.buffer).toBe(payload.buffer);
    expect(encoded.map((bytes) => bytes.toString('hex'))).toEqual(
      written.map((bytes) => Buffer.from(bytes).toString('hex')),
    );
    expect(encoded[1].buffer).toBe(payload.buffer);
  });

  it('names the first missing op when the message starts after the expected one', () => {
    const { payload, headers } = group(45, ['x']);
    const error = corruption(() => decodeGroupMessage(9, payload, headers, 41));
    expect(error.op).toBe(41);
    expect(error.reason).toMatch(/missing \(stream message 9 starts at op 45\)/);
  });

  it('refuses a message repeating earlier ops', () => {
    const { payload, headers } = group(40, ['x']);
    expect(corruption(() => decodeGroupMessage(9, payload, headers, 41)).op).toBe(41);
  });

  it('names the op whose bytes were damaged', () => {
    const { encoded, payload, headers } = group(41, ['aaaa', 'bbbb', 'cccc']);
    payload[encoded[0].length + encoded[1].length - 1] ^= 0x01;
    const error = corruption(() => decodeGroupMessage(9, payload, headers, 41));
    expect(error.op).toBe(42);
    expect(error.reason).toBe('checksum mismatch');
  });

  it('names the op whose entry the payload cuts short', () => {
    const { encoded, payload, headers } = group(41, ['aaaa', 'bbbb']);
    const cut = payload.subarray(0, encoded[0].length + 10);
    expect(corruption(() => decodeGroupMessage(9, cut, headers, 41)).op).toBe(42);
    const shortBody = payload.subarray(0, payload.length - 1);
    expect(corruption(() => decodeGroupMessage(9, shortBody, headers, 41)).op).toBe(42);
  });

  it('refuses bytes after the last op its headers name', () => {
    const { payload, headers } = group(41, ['aaaa', 'bbbb']);
    headers.set(JournalHeader.lastOp, '41');
    const error = corruption(() => decodeGroupMessage(9, payload, headers, 41));
    expect(error.op).toBe(41);
    expect(error.reason).toMatch(/bytes after op 41/);
  });

  it.each([
    ['no format', JournalHeader.format, ''],
    ['another format', JournalHeader.format, '2'],
    ['no first op', JournalHeader.firstOp, ''],
    ['a first op that is not a number', JournalHeader.firstOp, '4x'],
    ['a last op before the first', JournalHeader.lastOp, '40'],
  ])('refuses a message with %s', (_, header, value) => {
    const { payload, headers } = group(41, ['a']);
    headers.set(header, value);
    expect(corruption(() => decodeGroupMessage(9, payload, headers, 41)).op).toBe(41);
  });
});
