import { checksum } from '@once/protocol/internal';
import {
  ReplyCheckInvalidError,
  UncheckedReplies,
  checkedChecksumOf,
  decodeReplyChecks,
  lastCheckedOp,
} from './reply-checks';

const VERSIONS = Object.freeze({ ledger: 1 });

/** A reply frame whose header holds `text`'s checksum where the wire's checksum_body is. */
function frameOf(text: string): Buffer {
  const frame = Buffer.alloc(128 + Buffer.byteLength(text));
  checksum(Buffer.from(text)).copy(frame, 16);
  frame.write(text, 128);
  return frame;
}

function filled(capacity: number, ops: number[], framed: boolean): UncheckedReplies {
  const replies = new UncheckedReplies(capacity);
  for (const op of ops) {
    const text = `{"ok":true,"result":${op}}`;
    replies.add(op, 'ledger.deposit', text, framed ? frameOf(text) : undefined, 'ledger', VERSIONS);
  }
  return replies;
}

describe('UncheckedReplies', () => {
  it.each([
    ['frames (live)', true],
    ['texts (replay)', false],
  ])(
    'records the replies added since the last REPLY_CHECK, and finds none differing in its own check, from %s',
    (_, framed) => {
      const replies = filled(8, [3, 5, 6], framed);
      const body = replies.encodeNew()!;
      expect(decodeReplyChecks(body).map(({ op }) => op)).toEqual([3, 5, 6]);
      expect(decodeReplyChecks(body)[1].checksum).toEqual(
        checksum(Buffer.from('{"ok":true,"result":5}')),
      );
      expect(replies.firstDifference(body)).toBeUndefined();
      expect(replies.encodeNew()).toBeUndefined();
      expect(lastCheckedOp(body)).toBe(6);
    },
  );

  it('given a recorded reply computed otherwise, then the first differing op, whatever comes after', () => {
    const recorded = filled(8, [3, 5, 6, 9], true).encodeNew()!;
    const computed = new UncheckedReplies(8);
    for (const [op, result] of [
      [3, 3],
      [5, 50],
      [6, 60],
      [9, 9],
    ]) {
      computed.add(
        op,
        'ledger.deposit',
        `{"ok":true,"result":${result}}`,
        undefined,
        'ledger',
        VERSIONS,
      );
    }
    expect(computed.firstDifference(recorded)).toBe(5);
    expect(computed.find(5)).toMatchObject({
      op: 5,
      text: '{"ok":true,"result":50}',
      state: 'ledger',
    });
    expect(checkedChecksumOf(recorded, 5)).toBe(
      checksum(Buffer.from('{"ok":true,"result":5}')).toString('hex'),
    );
  });

  it('keeps the newest replies only: a check of ops pushed out of the ring compares what it still holds', () => {
    const recorded = filled(64, [1, 2, 3, 4, 5, 6], true).encodeNew()!;
    const small = new UncheckedReplies(2);
    for (const op of [1, 2, 3, 4, 5, 6]) {
      small.add(
        op,
        'p',
        op === 2 ? 'other' : `{"ok":true,"result":${op}}`,
        undefined,
        undefined,
        VERSIONS,
      );
    }
    // Op 2 differs but is gone from the ring: only 5 and 6 are compared.
    expect(small.firstDifference(recorded)).toBeUndefined();
    expect(small.find(2)).toBeUndefined();
  });

  it('after a check recorded through an op, the next REPLY_CHECK starts after it', () => {
    const replies = filled(8, [3, 5, 6, 9], true);
    replies.recordedThrough(6);
    expect(decodeReplyChecks(replies.encodeNew()!).map(({ op }) => op)).toEqual([9]);
  });

  it('refuses a body whose length does not match its count', () => {
    expect(() => decodeReplyChecks(Buffer.alloc(3))).toThrow(ReplyCheckInvalidError);
    const body = Buffer.alloc(4 + 10);
    body.writeUInt32LE(1, 0);
    expect(() => lastCheckedOp(body)).toThrow(ReplyCheckInvalidError);
  });
  it('given a ring that wrapped, then a check of recent ops is compared, and finds and misses by op', () => {
    const ops = Array.from({ length: 29 }, (_, i) => 2 * i + 1); // 1, 3, …, 57: wraps a ring of 8
    const replies = filled(8, ops, false);
    const recorded = filled(8, [49, 51, 53], true).encodeNew()!;
    expect(replies.firstDifference(recorded)).toBeUndefined();

    expect(filled(8, [50, 53], false).firstDifference(recorded)).toBeUndefined();
    const wrong = new UncheckedReplies(8);
    for (const op of [51, 53, 55]) {
      wrong.add(
        op,
        'ledger.deposit',
        `{"ok":true,"result":${op === 53 ? 0 : op}}`,
        undefined,
        'ledger',
        VERSIONS,
      );
    }
    expect(replies.firstDifference(wrong.encodeNew()!)).toBe(53);

    expect(replies.find(57)?.text).toBe('{"ok":true,"result":57}');
    expect(replies.find(43)?.text).toBe('{"ok":true,"result":43}'); // the oldest still held
    expect(replies.find(41)).toBeUndefined(); // overwritten
    expect(replies.find(44)).toBeUndefined(); // never added
    expect(replies.find(59)).toBeUndefined(); // not yet
  });
});
