import { ZERO_CHECKSUM } from '@once/protocol/internal';
import { type ClientId } from '@once/protocol';
import { ClientTable } from './client-table';
import { type ClientEntry } from './client-entry';
import { encodeTableSnapshot } from './table-snapshot-codec';

const id = (n: number): ClientId => n.toString(16).padStart(32, '0');
const sum = (n: number): Buffer => Buffer.alloc(16, n);
const frame = (text: string): Buffer => Buffer.from(`frame:${text}`);

const A = id(0xa);
const B = id(0xb);
const C = id(0xc);
const ALICE = 1;
const BOB = 2;

/** A code-carrying error thrown by `run`, or a failure. */
function codeOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  throw new Error('expected a throw');
}

/**
 * A table with one session of ALICE on client A: REGISTER at op 1, then `replies`
 * committed requests 1..replies at ops 2.., request n with checksum sum(n) and reply frame(n).
 */
function aliceWithReplies(replies: number, ring = 8): ClientTable {
  const table = new ClientTable({ capacity: 4, ring });
  table.commitRegister(1, 1000n, A, ALICE);
  for (let request = 1; request <= replies; request++) {
    const op = 1 + request;
    table.commitReply(op, BigInt(1000 + op), A, 1, request, sum(request), frame(`${request}`));
  }
  return table;
}

describe('ClientTable', () => {
  describe('options', () => {
    it.each([
      [{ capacity: 0, ring: 8 }],
      [{ capacity: 1.5, ring: 8 }],
      [{ capacity: 4, ring: 0 }],
      [{ capacity: 4, ring: -1 }],
      [{ capacity: Number.NaN, ring: 8 }],
      [{ capacity: 2 ** 32, ring: 8 }],
      [{ capacity: 4 } as unknown as { capacity: number; ring: number }],
    ])('rejects %j with a RangeError coded INVALID_TABLE_OPTIONS', (options) => {
      expect(() => new ClientTable(options)).toThrow(RangeError);
      expect(codeOf(() => new ClientTable(options))).toBe('INVALID_TABLE_OPTIONS');
    });

    it('exposes its limits and starts empty', () => {
      const table = new ClientTable({ capacity: 3, ring: 2 });
      expect([table.capacity, table.ring, table.size]).toEqual([3, 2, 0]);
      expect([...table.entries()]).toEqual([]);
    });
  });

  describe('check: the COMMAND table of PROTOCOL.md, row by row', () => {
    it('row "no entry for client": no-session', () => {
      const table = aliceWithReplies(0);
      expect(table.check(B, 1, 1, sum(1))).toEqual({ kind: 'no-session' });
    });

    it('row "session < entry epoch": session-too-low (fenced), with epoch and watermark', () => {
      const table = aliceWithReplies(2);
      table.commitRegister(10, 2000n, A, ALICE);
      expect(table.check(A, 1, 3, sum(3))).toEqual({
        kind: 'session-too-low',
        epoch: 10,
        watermark: 2,
      });
    });

    it('row "session > entry epoch": epoch-ahead', () => {
      const table = aliceWithReplies(2);
      expect(table.check(A, 2, 3, sum(3))).toEqual({ kind: 'epoch-ahead', epoch: 1, watermark: 2 });
    });

    it('row "request = 0": invalid-request', () => {
      const table = aliceWithReplies(2);
      expect(table.check(A, 1, 0, sum(0))).toEqual({ kind: 'invalid-request' });
    });

    it('row "request ≤ watermark, cached, same checksum_body": duplicate, the reply as first sent', () => {
      const table = aliceWithReplies(3);
      const result = table.check(A, 1, 2, sum(2));
      expect(result).toEqual({ kind: 'duplicate', reply: frame('2') });
      // The same bytes again, whatever the caller passes as the checksum's container.
      expect(table.check(A, 1, 3, new Uint8Array(sum(3)))).toEqual({
        kind: 'duplicate',
        reply: frame('3'),
      });
    });

    it('row "request ≤ watermark, cached, other checksum_body": conflict', () => {
      const table = aliceWithReplies(3);
      expect(table.check(A, 1, 2, sum(9))).toEqual({ kind: 'conflict', watermark: 3 });
    });

    it('an entry that kept no checksum (all zero: a secret body) is matched by its number alone: duplicate', () => {
      const table = new ClientTable({ capacity: 4, ring: 8 });
      table.commitRegister(1, 1000n, A, ALICE);
      table.commitReply(2, 1002n, A, 1, 1, sum(0), frame('secret'));
      expect(table.check(A, 1, 1, sum(7))).toEqual({ kind: 'duplicate', reply: frame('secret') });
    });

    it('row "request ≤ watermark, no longer cached": already-applied', () => {
      const table = aliceWithReplies(4, 2);
      expect(table.check(A, 1, 2, sum(2))).toEqual({ kind: 'already-applied', watermark: 4 });
      expect(table.check(A, 1, 1, sum(9))).toEqual({ kind: 'already-applied', watermark: 4 });
    });

    it('row "watermark < request < next expected (in flight)": in-flight', () => {
      const table = aliceWithReplies(2);
      expect(table.check(A, 1, 3, sum(3), 5)).toEqual({ kind: 'in-flight' });
      expect(table.check(A, 1, 5, sum(9), 5)).toEqual({ kind: 'in-flight' });
    });

    it('row "request = next expected": new (watermark + 1, or highestAdmitted + 1)', () => {
      const table = aliceWithReplies(2);
      expect(table.check(A, 1, 3, sum(3))).toEqual({ kind: 'new' });
      expect(table.check(A, 1, 6, sum(6), 5)).toEqual({ kind: 'new' });
      expect(aliceWithReplies(0).check(A, 1, 1, sum(1))).toEqual({ kind: 'new' });
    });

    it('row "request > next expected": gap, with the next expected number', () => {
      const table = aliceWithReplies(2);
      expect(table.check(A, 1, 4, sum(4))).toEqual({ kind: 'gap', watermark: 2, nextExpected: 3 });
      expect(table.check(A, 1, 9, sum(9), 5)).toEqual({
        kind: 'gap',
        watermark: 2,
        nextExpected: 6,
      });
      // A peer's u64 above 2^53 reads as a huge number: still a gap.
      expect(table.check(A, 1, 2 ** 64, sum(1)).kind).toBe('gap');
    });

    it('applies the rows in order: the session rows come before the request rows', () => {
      const table = aliceWithReplies(2);
      table.commitRegister(10, 2000n, A, ALICE);
      expect(table.check(A, 1, 0, sum(0)).kind).toBe('session-too-low');
      expect(table.check(A, 11, 0, sum(0)).kind).toBe('epoch-ahead');
      expect(table.check(A, 10, 0, sum(0)).kind).toBe('invalid-request');
    });

    it('never mutates the table', () => {
      const table = aliceWithReplies(3, 2);
      const before = table.snapshot();
      for (const request of [0, 1, 2, 3, 4, 5]) table.check(A, 1, request, sum(request), 4);
      table.check(B, 1, 1, sum(1));
      expect(table.snapshot()).toEqual(before);
    });

    it('asserts highestAdmitted >= watermark and a 16-byte checksum', () => {
      const table = aliceWithReplies(3);
      expect(codeOf(() => table.check(A, 1, 4, sum(4), 2))).toBe('TABLE_INVARIANT');
      expect(codeOf(() => table.check(A, 1, 4, Buffer.alloc(15)))).toBe('TABLE_INVARIANT');
    });
  });

  describe('commitRegister', () => {
    it('creates a new entry: epoch = op, watermark 0, no replies', () => {
      const table = new ClientTable({ capacity: 2, ring: 8 });
      expect(table.commitRegister(7, 1234n, A, ALICE)).toEqual({
        kind: 'registered',
        epoch: 7,
        watermark: 0,
        created: true,
        previousEpoch: undefined,
        evicted: undefined,
      });
      const entry = table.get(A)!;
      expect(entry).toEqual({
        client: A,
        userId: ALICE,
        epoch: 7,
        watermark: 0,
        watermarkChecksum: ZERO_CHECKSUM,
        latestCommitOp: 7,
        latestCommitTimestamp: 1234n,
        replies: [],
      });
      expect(entry.watermarkChecksum).toBe(ZERO_CHECKSUM);
      expect(table.size).toBe(1);
    });

    it('resume by the same user: a higher epoch, watermark and replies kept, old epoch fenced', () => {
      const table = aliceWithReplies(3);
      const before = table.get(A)!;
      expect(table.commitRegister(20, 5000n, A, ALICE)).toEqual({
        kind: 'registered',
        epoch: 20,
        watermark: 3,
        created: false,
        previousEpoch: 1,
        evicted: undefined,
      });
      const after = table.get(A)!;
      expect(after.epoch).toBe(20);
      expect(after.watermark).toBe(3);
      expect(after.watermarkChecksum).toEqual(sum(3));
      expect(after.replies).toEqual(before.replies);
      expect(after.latestCommitOp).toBe(20);
      expect(after.latestCommitTimestamp).toBe(5000n);
      // The entry a caller held is a value: it did not change.
      expect(before.epoch).toBe(1);
      expect(table.check(A, 20, 2, sum(2))).toEqual({ kind: 'duplicate', reply: frame('2') });
      expect(table.check(A, 1, 4, sum(4)).kind).toBe('session-too-low');
    });

    it('another user’s client id: refused, nothing changes', () => {
      const table = aliceWithReplies(2);
      const before = table.snapshot();
      const entry = table.get(A);
      expect(table.commitRegister(10, 2000n, A, BOB)).toEqual({
        kind: 'owned-by-other-user',
        ownerUserId: ALICE,
      });
      expect(table.snapshot()).toEqual(before);
      expect(table.get(A)).toBe(entry);
    });

    it('at capacity, evicts the entry with the lowest latestCommitOp', () => {
      const table = new ClientTable({ capacity: 2, ring: 8 });
      table.commitRegister(1, 1n, A, ALICE);
      table.commitRegister(2, 2n, B, BOB);
      table.commitReply(3, 3n, A, 1, 1, sum(1), frame('a1')); // A is now the most recent
      const result = table.commitRegister(4, 4n, C, ALICE);
      expect(result.kind).toBe('registered');
      if (result.kind !== 'registered') return;
      expect(result.created).toBe(true);
      expect(result.evicted?.client).toBe(B);
      expect(result.evicted?.latestCommitOp).toBe(2);
      expect([...table.entries()].map((entry) => entry.client)).toEqual([A, C]);
    });

    it('a resume at capacity evicts nothing', () => {
      const table = new ClientTable({ capacity: 2, ring: 8 });
      table.commitRegister(1, 1n, A, ALICE);
      table.commitRegister(2, 2n, B, BOB);
      const result = table.commitRegister(3, 3n, A, ALICE);
      expect(result).toMatchObject({ kind: 'registered', created: false, evicted: undefined });
      expect(table.size).toBe(2);
    });

    it('ties on latestCommitOp (from a restored snapshot) evict the lowest client id', () => {
      const entry = (client: ClientId): ClientEntry => ({
        client,
        userId: ALICE,
        epoch: 5,
        watermark: 0,
        watermarkChecksum: ZERO_CHECKSUM,
        latestCommitOp: 5,
        latestCommitTimestamp: 50n,
        replies: [],
      });
      // Written out of order on purpose: restore sorts by (latestCommitOp, client id).
      const bytes = encodeTableSnapshot({ capacity: 3, ring: 8, entries: [entry(C), entry(A)] });
      const table = ClientTable.restore(bytes);
      table.commitRegister(6, 60n, B, BOB);
      expect([...table.entries()].map((e) => e.client)).toEqual([A, C, B]);
      const result = table.commitRegister(7, 70n, id(0xd), BOB);
      expect(result.kind === 'registered' && result.evicted?.client).toBe(A);
      const next = table.commitRegister(8, 80n, id(0xe), BOB);
      expect(next.kind === 'registered' && next.evicted?.client).toBe(C);
    });

    it('asserts epochs only grow: an op not above every op seen throws TABLE_INVARIANT', () => {
      const table = aliceWithReplies(2); // ops 1..3
      expect(codeOf(() => table.commitRegister(3, 5000n, B, BOB))).toBe('TABLE_INVARIANT');
      expect(codeOf(() => table.commitRegister(2, 5000n, A, ALICE))).toBe('TABLE_INVARIANT');
      expect(codeOf(() => table.commitRegister(4.5, 5000n, B, BOB))).toBe('TABLE_INVARIANT');
      // Refused registers count as seen ops too.
      table.commitRegister(9, 5000n, A, BOB);
      expect(codeOf(() => table.commitRegister(9, 5000n, B, BOB))).toBe('TABLE_INVARIANT');
      expect(table.size).toBe(1);
    });

    it('asserts timestamps never decrease and arguments are well formed', () => {
      const table = aliceWithReplies(0); // op 1 at 1000n
      expect(codeOf(() => table.commitRegister(2, 999n, B, BOB))).toBe('TABLE_INVARIANT');
      expect(codeOf(() => table.commitRegister(2, 2n ** 64n, B, BOB))).toBe('TABLE_INVARIANT');
      expect(codeOf(() => table.commitRegister(2, 1000n, 'B', BOB))).toBe('TABLE_INVARIANT');
      expect(codeOf(() => table.commitRegister(2, 1000n, B, -1))).toBe('TABLE_INVARIANT');
      expect(table.commitRegister(2, 1000n, B, BOB).kind).toBe('registered');
    });
  });

  describe('commitReply', () => {
    it('moves the watermark, caches the reply and becomes the latest commit', () => {
      const table = new ClientTable({ capacity: 4, ring: 8 });
      table.commitRegister(1, 10n, A, ALICE);
      table.commitRegister(2, 20n, B, BOB);
      table.commitReply(3, 30n, A, 1, 1, sum(1), frame('a1'));
      const entry = table.get(A)!;
      expect(entry.watermark).toBe(1);
      expect(entry.watermarkChecksum).toEqual(sum(1));
      expect(entry.latestCommitOp).toBe(3);
      expect(entry.latestCommitTimestamp).toBe(30n);
      expect(
        entry.replies.map(({ request, requestChecksum, reply }) => ({
          request,
          requestChecksum,
          reply,
        })),
      ).toEqual([{ request: 1, requestChecksum: sum(1), reply: frame('a1') }]);
      expect([...table.entries()].map((e) => e.client)).toEqual([B, A]);
    });

    it('encodes a reply given as an encoder when it is first read, once', () => {
      const table = aliceWithReplies(0);
      let encoded = 0;
      table.commitReply(2, 2000n, A, 1, 1, sum(1), () => {
        encoded++;
        return frame('a1');
      });
      expect(encoded).toBe(0);
      expect(table.check(A, 1, 1, sum(1))).toEqual({ kind: 'duplicate', reply: frame('a1') });
      expect(table.check(A, 1, 1, sum(1))).toEqual({ kind: 'duplicate', reply: frame('a1') });
      expect(encoded).toBe(1);
    });

    it('caches copies: the caller may reuse its buffers', () => {
      const table = aliceWithReplies(0);
      const checksum = sum(1);
      const reply = frame('a1');
      table.commitReply(2, 2000n, A, 1, 1, checksum, reply);
      checksum.fill(0xff);
      reply.fill(0);
      expect(table.check(A, 1, 1, sum(1))).toEqual({ kind: 'duplicate', reply: frame('a1') });
    });

    it('keeps a handed-over reply that is a buffer of its own as it is, without a copy', () => {
      const table = aliceWithReplies(0);
      const reply = Buffer.allocUnsafeSlow(40).fill(7);
      table.commitReply(2, 2000n, A, 1, 1, sum(1), reply, 'handed-over');
      const check = table.check(A, 1, 1, sum(1));
      expect(check.kind === 'duplicate' && check.reply).toBe(reply);
    });

    it.each<[string, () => Buffer]>([
      ['a slice of a larger buffer', () => Buffer.alloc(64, 7).subarray(8, 48)],
      ['a small Buffer.from (a slice of the shared pool)', () => Buffer.from('frame:a1')],
    ])('copies a handed-over reply that is %s, so it pins nothing larger', (_row, make) => {
      const table = aliceWithReplies(0);
      const reply = make();
      table.commitReply(2, 2000n, A, 1, 1, sum(1), reply, 'handed-over');
      const check = table.check(A, 1, 1, sum(1));
      if (check.kind !== 'duplicate') throw new Error(`expected a duplicate, got ${check.kind}`);
      expect(check.reply).not.toBe(reply);
      expect(check.reply).toEqual(reply);
      expect(check.reply.byteLength).toBe(check.reply.buffer.byteLength);
    });

    it('copies a reply of its own unless it is handed over', () => {
      const table = aliceWithReplies(0);
      const reply = Buffer.allocUnsafeSlow(40).fill(7);
      table.commitReply(2, 2000n, A, 1, 1, sum(1), reply);
      reply.fill(0);
      const check = table.check(A, 1, 1, sum(1));
      expect(check.kind === 'duplicate' && check.reply).toEqual(Buffer.alloc(40, 7));
    });

    it('ring rollover: beyond `ring` replies the oldest becomes already-applied', () => {
      const table = aliceWithReplies(3, 3);
      expect(table.get(A)!.replies.map((r) => r.request)).toEqual([1, 2, 3]);
      table.commitReply(5, 5000n, A, 1, 4, sum(4), frame('4'));
      expect(table.get(A)!.replies.map((r) => r.request)).toEqual([2, 3, 4]);
      expect(table.check(A, 1, 1, sum(1))).toEqual({ kind: 'already-applied', watermark: 4 });
      expect(table.check(A, 1, 2, sum(2))).toEqual({ kind: 'duplicate', reply: frame('2') });
      expect(table.check(A, 1, 4, sum(4))).toEqual({ kind: 'duplicate', reply: frame('4') });
    });

    it('ring of one keeps only the watermark’s reply', () => {
      const table = aliceWithReplies(3, 1);
      expect(table.get(A)!.replies.map((r) => r.request)).toEqual([3]);
      expect(table.check(A, 1, 2, sum(2)).kind).toBe('already-applied');
      expect(table.check(A, 1, 3, sum(3)).kind).toBe('duplicate');
    });

    it('asserts request === watermark + 1 (code TABLE_INVARIANT), changing nothing', () => {
      const table = aliceWithReplies(2);
      const before = table.snapshot();
      for (const request of [0, 1, 2, 4]) {
        expect(codeOf(() => table.commitReply(9, 9000n, A, 1, request, sum(1), frame('x')))).toBe(
          'TABLE_INVARIANT',
        );
      }
      expect(table.snapshot()).toEqual(before);
      table.commitReply(9, 9000n, A, 1, 3, sum(3), frame('3'));
      expect(table.get(A)!.watermark).toBe(3);
    });

    it('asserts the entry exists, the epoch matches and the op grows', () => {
      const table = aliceWithReplies(1);
      expect(codeOf(() => table.commitReply(9, 9000n, B, 1, 1, sum(1), frame('x')))).toBe(
        'TABLE_INVARIANT',
      );
      expect(codeOf(() => table.commitReply(9, 9000n, A, 2, 2, sum(2), frame('x')))).toBe(
        'TABLE_INVARIANT',
      );
      expect(codeOf(() => table.commitReply(2, 9000n, A, 1, 2, sum(2), frame('x')))).toBe(
        'TABLE_INVARIANT',
      );
      expect(codeOf(() => table.commitReply(9, 9000n, A, 1, 2, Buffer.alloc(8), frame('x')))).toBe(
        'TABLE_INVARIANT',
      );
    });

    it('says in a failed assertion which values broke it', () => {
      const table = aliceWithReplies(1);
      const messageOf = (commit: () => void): string => {
        try {
          commit();
        } catch (error) {
          return (error as Error).message;
        }
        throw new Error('expected the commit to be refused');
      };
      expect(messageOf(() => table.commitReply(9, 9000n, A, 1, 5, sum(5), frame('x')))).toContain(
        `client ${A} request 5 !== watermark + 1 (2)`,
      );
      expect(messageOf(() => table.commitReply(9, 1n, A, 1, 2, sum(2), frame('x')))).toContain(
        'timestamp 1 must be a u64 not below',
      );
      expect(messageOf(() => table.commitReply(1, 9000n, A, 1, 2, sum(2), frame('x')))).toContain(
        'op 1 must be an integer above the latest op',
      );
    });
  });

  describe('applicable', () => {
    it('answers ok only for the entry’s epoch and watermark + 1', () => {
      const table = aliceWithReplies(2);
      table.commitRegister(10, 2000n, A, ALICE);
      expect(table.applicable(A, 10, 3)).toBe('ok');
      expect(table.applicable(B, 10, 3)).toBe('no-session');
      expect(table.applicable(A, 1, 3)).toBe('session-too-low');
      expect(table.applicable(A, 11, 3)).toBe('epoch-ahead');
      expect(table.applicable(A, 10, 2)).toBe('not-next');
      expect(table.applicable(A, 10, 4)).toBe('not-next');
    });
  });

  describe('remove', () => {
    it('removes and returns the entry; the session is then gone', () => {
      const table = aliceWithReplies(2);
      table.commitRegister(10, 2000n, B, BOB);
      const removed = table.remove(A);
      expect(removed?.client).toBe(A);
      expect(removed?.watermark).toBe(2);
      expect(table.size).toBe(1);
      expect(table.get(A)).toBeUndefined();
      expect(table.check(A, 1, 3, sum(3))).toEqual({ kind: 'no-session' });
      expect(table.applicable(A, 1, 3)).toBe('no-session');
      expect(table.remove(A)).toBeUndefined();
    });

    it('a new REGISTER after a removal starts from watermark 0', () => {
      const table = aliceWithReplies(2);
      table.remove(A);
      expect(table.commitRegister(10, 2000n, A, BOB)).toMatchObject({
        created: true,
        watermark: 0,
        epoch: 10,
      });
    });
  });

  describe('setLimits', () => {
    it('trims every ring to its newest `ring` replies, keeping the eviction order', () => {
      const table = new ClientTable({ capacity: 4, ring: 4 });
      table.commitRegister(1, 1n, A, ALICE);
      table.commitRegister(2, 2n, B, BOB);
      for (let request = 1; request <= 4; request++) {
        table.commitReply(
          2 + request,
          BigInt(2 + request),
          A,
          1,
          request,
          sum(request),
          frame(`${request}`),
        );
      }
      table.commitReply(7, 7n, B, 2, 1, sum(1), frame('b1'));
      expect(table.setLimits({ capacity: 4, ring: 2 })).toEqual([]);
      expect(table.ring).toBe(2);
      expect(table.get(A)!.replies.map((r) => r.request)).toEqual([3, 4]);
      expect(table.get(A)!.watermarkChecksum).toEqual(sum(4));
      expect(table.get(B)!.replies.map((r) => r.request)).toEqual([1]);
      expect(table.check(A, 1, 2, sum(2))).toEqual({ kind: 'already-applied', watermark: 4 });
      expect(table.check(A, 1, 3, sum(3))).toEqual({ kind: 'duplicate', reply: frame('3') });
      expect([...table.entries()].map((e) => e.client)).toEqual([A, B]);
      // The next reply rolls over within the new ring.
      table.commitReply(8, 8n, A, 1, 5, sum(5), frame('5'));
      expect(table.get(A)!.replies.map((r) => r.request)).toEqual([4, 5]);
    });

    it('evicts in eviction order until size <= capacity and returns them in that order', () => {
      const table = new ClientTable({ capacity: 4, ring: 8 });
      table.commitRegister(1, 1n, A, ALICE);
      table.commitRegister(2, 2n, B, BOB);
      table.commitRegister(3, 3n, C, ALICE);
      table.commitRegister(4, 4n, id(0xd), BOB);
      table.commitReply(5, 5n, A, 1, 1, sum(1), frame('a1'));
      const evicted = table.setLimits({ capacity: 1, ring: 8 });
      expect(evicted.map((e) => e.client)).toEqual([B, C, id(0xd)]);
      expect([...table.entries()].map((e) => e.client)).toEqual([A]);
      expect(table.capacity).toBe(1);
      // The new capacity governs the next REGISTER.
      const result = table.commitRegister(6, 6n, B, BOB);
      expect(result.kind === 'registered' && result.evicted?.client).toBe(A);
    });

    it('rejects invalid limits with INVALID_TABLE_OPTIONS and keeps the old ones', () => {
      const table = aliceWithReplies(2);
      expect(codeOf(() => table.setLimits({ capacity: 0, ring: 1 }))).toBe('INVALID_TABLE_OPTIONS');
      expect([table.capacity, table.ring, table.size]).toEqual([4, 8, 1]);
    });
  });

  describe('expireBefore', () => {
    it('removes, oldest first, every entry whose latestCommitTimestamp < cutoff', () => {
      const table = new ClientTable({ capacity: 4, ring: 8 });
      table.commitRegister(1, 100n, A, ALICE);
      table.commitRegister(2, 200n, B, BOB);
      table.commitRegister(3, 300n, C, ALICE);
      table.commitReply(4, 400n, A, 1, 1, sum(1), frame('a1')); // A is active again
      expect(table.expireBefore(200n)).toEqual([]);
      const expired = table.expireBefore(301n);
      expect(expired.map((e) => e.client)).toEqual([B, C]);
      expect([...table.entries()].map((e) => e.client)).toEqual([A]);
      expect(table.check(B, 2, 1, sum(1))).toEqual({ kind: 'no-session' });
      expect(table.expireBefore(400n)).toEqual([]);
      expect(table.expireBefore(401n).map((e) => e.client)).toEqual([A]);
      expect(table.size).toBe(0);
    });
  });

  describe('entries', () => {
    it('iterates in eviction order: lowest latestCommitOp first', () => {
      const table = new ClientTable({ capacity: 4, ring: 8 });
      table.commitRegister(1, 1n, C, ALICE);
      table.commitRegister(2, 2n, A, ALICE);
      table.commitRegister(3, 3n, B, BOB);
      table.commitRegister(4, 4n, C, ALICE);
      expect([...table.entries()].map((e) => [e.client, e.latestCommitOp])).toEqual([
        [A, 2],
        [B, 3],
        [C, 4],
      ]);
    });

    it('hands out live entries: a committed reply updates the entry a caller holds', () => {
      const table = aliceWithReplies(1);
      const entry = table.get(A)!;
      const before = { watermark: entry.watermark, replies: entry.replies.length };
      table.commitReply(
        100_000,
        100_000n,
        A,
        entry.epoch,
        entry.watermark + 1,
        sum(entry.watermark + 1),
        frame('x'),
      );
      expect(entry.watermark).toBe(before.watermark + 1);
      expect(entry.replies.length).toBe(before.replies + 1);
      expect(table.get(A)).toBe(entry);
    });
  });
});
