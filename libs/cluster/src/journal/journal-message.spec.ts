import { EntryKind, JournalCorruptionError } from '@once/journal';
import { encodeEntry, type JournalEntry } from '@once/journal/internal';
import { ClusterKeyring } from '../key';
import { GROUP_MAC_HEADER, GroupAuthenticator } from './group-authenticator';
import { JournalGroupUnverifiedError } from './journal-group-unverified.error';
import { JournalHeader, decodeGroupMessage, encodeGroupMessage } from './journal-message';

const KEY = Buffer.alloc(32, 1);
const auth = new GroupAuthenticator(new ClusterKeyring([KEY]), 'ONCE_t_JOURNAL');
/**
 * The decoder's own checks (headers, checksums, framing) below a MAC: these
 * messages are tampered with after signing, so the MAC header is dropped
 * and the sequence is one a pre-key build wrote.
 */
const legacy = new GroupAuthenticator(new ClusterKeyring([KEY]), 'ONCE_t_JOURNAL', 9);

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
  const message = encodeGroupMessage(encoded, firstOp, 9, auth);
  message.headers.delete(GROUP_MAC_HEADER);
  return { encoded, ...message };
}

function unverified(run: () => unknown): JournalGroupUnverifiedError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(JournalGroupUnverifiedError);
    return error as JournalGroupUnverifiedError;
  }
  throw new Error('expected a JournalGroupUnverifiedError');
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
    const { entries, encoded } = decodeGroupMessage(9, payload, headers, legacy, 41);
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
    const error = corruption(() => decodeGroupMessage(9, payload, headers, legacy, 41));
    expect(error.op).toBe(41);
    expect(error.reason).toMatch(/missing \(stream message 9 starts at op 45\)/);
  });

  it('refuses a message repeating earlier ops', () => {
    const { payload, headers } = group(40, ['x']);
    expect(corruption(() => decodeGroupMessage(9, payload, headers, legacy, 41)).op).toBe(41);
  });

  it('names the op whose bytes were damaged', () => {
    const { encoded, payload, headers } = group(41, ['aaaa', 'bbbb', 'cccc']);
    payload[encoded[0].length + encoded[1].length - 1] ^= 0x01;
    const error = corruption(() => decodeGroupMessage(9, payload, headers, legacy, 41));
    expect(error.op).toBe(42);
    expect(error.reason).toBe('checksum mismatch');
  });

  it('names the op whose entry the payload cuts short', () => {
    const { encoded, payload, headers } = group(41, ['aaaa', 'bbbb']);
    const cut = payload.subarray(0, encoded[0].length + 10);
    expect(corruption(() => decodeGroupMessage(9, cut, headers, legacy, 41)).op).toBe(42);
    const shortBody = payload.subarray(0, payload.length - 1);
    expect(corruption(() => decodeGroupMessage(9, shortBody, headers, legacy, 41)).op).toBe(42);
  });

  it('refuses bytes after the last op its headers name', () => {
    const { payload, headers } = group(41, ['aaaa', 'bbbb']);
    headers.set(JournalHeader.lastOp, '41');
    const error = corruption(() => decodeGroupMessage(9, payload, headers, legacy, 41));
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
    expect(corruption(() => decodeGroupMessage(9, payload, headers, legacy, 41)).op).toBe(41);
  });
});

describe('the MAC of a journal message', () => {
  function signed(firstOp: number, bodies: string[], seq = 9) {
    const encoded = bodies.map((body, i) => encodeEntry(entry(firstOp + i, body)));
    return encodeGroupMessage(encoded, firstOp, seq, auth);
  }

  it('verifies the message at the sequence and ops it was signed for', () => {
    const { payload, headers } = signed(41, ['a', 'b']);
    expect(headers.get(GROUP_MAC_HEADER)).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(decodeGroupMessage(9, payload, headers, auth, 41).entries).toHaveLength(2);
  });

  it('refuses a message without a MAC past the unsigned history, naming its op and sequence', () => {
    const { payload, headers } = signed(41, ['a'], 10);
    headers.delete(GROUP_MAC_HEADER);
    const error = unverified(() => decodeGroupMessage(10, payload, headers, legacy, 41));
    expect([error.code, error.op, error.seq]).toEqual(['JOURNAL_GROUP_UNVERIFIED', 41, 10]);
    expect(error.message).toMatch(/carries no Once-Mac header/);
  });

  it('refuses a valid message replayed at another sequence', () => {
    const { payload, headers } = signed(41, ['a'], 9);
    unverified(() => decodeGroupMessage(10, payload, headers, auth, 41));
  });

  it('refuses a message whose op headers were moved, even with valid entry checksums', () => {
    const { payload, headers } = signed(41, ['a', 'b']);
    headers.set(JournalHeader.lastOp, '41');
    unverified(() => decodeGroupMessage(9, payload, headers, auth, 41));
  });

  it('refuses one flipped payload bit before decoding an entry', () => {
    const { payload, headers } = signed(41, ['aaaa']);
    payload[payload.length - 1] ^= 1;
    unverified(() => decodeGroupMessage(9, payload, headers, auth, 41));
  });

  it('refuses a message signed under another key or for another stream', () => {
    const other = new GroupAuthenticator(
      new ClusterKeyring([Buffer.alloc(32, 2)]),
      'ONCE_t_JOURNAL',
    );
    const { payload, headers } = signed(41, ['a']);
    unverified(() => decodeGroupMessage(9, payload, headers, other, 41));
    const elsewhere = new GroupAuthenticator(new ClusterKeyring([KEY]), 'ONCE_u_JOURNAL');
    unverified(() => decodeGroupMessage(9, payload, headers, elsewhere, 41));
  });

  it('verifies under any key of the ring, so a new key can be rolled in', () => {
    const { payload, headers } = signed(41, ['a']);
    const rolled = new GroupAuthenticator(
      new ClusterKeyring([Buffer.alloc(32, 2), KEY]),
      'ONCE_t_JOURNAL',
    );
    expect(decodeGroupMessage(9, payload, headers, rolled, 41).entries).toHaveLength(1);
  });
});
