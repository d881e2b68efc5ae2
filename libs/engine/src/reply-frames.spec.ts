import { EntryKind } from '@once/journal';
import { type JournalEntry } from '@once/journal/internal';
import { Command, EvictionReason, Operation, Status } from '@once/protocol';
import { checksum, clientIdFromBigInt, decodeHeader } from '@once/protocol/internal';
import {
  CLIENT_OWNED_BY_OTHER_USER_MESSAGE,
  EPOCH_AHEAD_MESSAGE,
  evictionAtApply,
  ownedByOtherUserReply,
  refusalAtApply,
  registerReply,
  replicatedReply,
  requestGapMessage,
} from './reply-frames';

const CLIENT = clientIdFromBigInt(0xc1n);

const ENTRY: JournalEntry = {
  kind: EntryKind.Command,
  client: CLIENT,
  session: 4,
  request: 9,
  userId: 3,
  requestChecksum: checksum(Buffer.from('{"pattern":"p","data":1}')),
  body: Buffer.from('{"pattern":"p","data":1}'),
  op: 42,
  timestamp: 1_700_000_000_000_000_000n,
};

function bodyOf(frame: Buffer): unknown {
  return JSON.parse(frame.subarray(128).toString('utf8'));
}

describe('reply frames', () => {
  it('builds a replicated reply from the entry alone: op = commit, its time, its request as watermark', () => {
    const frame = replicatedReply(ENTRY, Operation.Command, '{"ok":true,"result":1}');
    const header = decodeHeader(frame);
    expect(header).toMatchObject({
      command: Command.Reply,
      operation: Operation.Command,
      status: Status.Ok,
      client: CLIENT,
      session: 4,
      request: 9,
      op: 42,
      commit: 42,
      timestamp: ENTRY.timestamp,
      watermark: 9,
    });
    expect(header.resumeToken.equals(ENTRY.requestChecksum)).toBe(true);
    expect(bodyOf(frame)).toEqual({ ok: true, result: 1 });
  });

  it('builds a REGISTER reply under the new epoch with the token in its body', () => {
    const token = Buffer.alloc(16, 0xab);
    const frame = registerReply(ENTRY, { epoch: 42, watermark: 5, resumeToken: token });
    expect(decodeHeader(frame)).toMatchObject({
      operation: Operation.Register,
      status: Status.Ok,
      session: 42,
      request: 0,
      op: 42,
      commit: 42,
      watermark: 5,
    });
    expect(bodyOf(frame)).toEqual({
      userId: 3,
      epoch: 42,
      watermark: 5,
      resumeToken: token.toString('hex'),
    });
  });

  it('refuses a REGISTER of another user’s client id without disclosing its session', () => {
    const frame = ownedByOtherUserReply(ENTRY);
    expect(decodeHeader(frame)).toMatchObject({
      operation: Operation.Register,
      status: Status.ClientOwnedByOtherUser,
      session: 0,
      watermark: 0,
      op: 42,
      commit: 42,
    });
    expect(bodyOf(frame)).toEqual({
      ok: false,
      error: { code: 'CLIENT_OWNED_BY_OTHER_USER', message: CLIENT_OWNED_BY_OTHER_USER_MESSAGE },
    });
  });

  it('evicts at apply with the reason as status, committing nothing', () => {
    const frame = evictionAtApply(ENTRY, Operation.Logout, EvictionReason.SessionTooLow, 7);
    const header = decodeHeader(frame);
    expect(header).toMatchObject({
      command: Command.Eviction,
      operation: Operation.Logout,
      status: EvictionReason.SessionTooLow,
      session: 4,
      request: 9,
      op: 0,
      timestamp: 0n,
      commit: 42,
      watermark: 7,
    });
    expect(frame.length).toBe(128);
  });

  it('refuses at apply with EPOCH_AHEAD or REQUEST_GAP naming the next number', () => {
    const ahead = refusalAtApply(ENTRY, Operation.Command, 'epoch-ahead', 7);
    const gap = refusalAtApply(ENTRY, Operation.Command, 'not-next', 7);
    expect(decodeHeader(ahead)).toMatchObject({ status: Status.EpochAhead, op: 0, commit: 42 });
    expect(decodeHeader(gap)).toMatchObject({ status: Status.RequestGap, watermark: 7 });
    expect(bodyOf(ahead)).toEqual({
      ok: false,
      error: { code: 'EPOCH_AHEAD', message: EPOCH_AHEAD_MESSAGE },
    });
    expect(bodyOf(gap)).toEqual({
      ok: false,
      error: { code: 'REQUEST_GAP', message: requestGapMessage(8) },
    });
    expect(requestGapMessage(8)).toBe('the next request number is 8');
  });
});
