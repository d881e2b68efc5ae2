import { EntryKind } from '@once/journal';
import { type JournalEntry } from '@once/journal/internal';
import { Command, EvictionReason, Operation, Status, type Frame } from '@once/protocol';
import {
  checksum,
  clientIdFromBigInt,
  decodeHeader,
  encodeFrame,
  FrameDecoder,
} from '@once/protocol/internal';
import {
  CLIENT_OWNED_BY_OTHER_USER_MESSAGE,
  EPOCH_AHEAD_MESSAGE,
  evictionAtApply,
  notLeaderAnswer,
  ownedByOtherUserReply,
  pingReply,
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

  describe('PING', () => {
    const ping = (): Frame => {
      const decoder = new FrameDecoder();
      decoder.push(
        encodeFrame({ command: Command.Request, operation: Operation.Ping, client: CLIENT }),
      );
      const result = decoder.next();
      if (result?.kind !== 'frame') throw new Error('the PING did not decode');
      return result.frame;
    };

    it('keeps the body PROTOCOL.md gives, byte for byte, and adds the cluster keys after it', () => {
      const frame = pingReply(ping(), 12, true);
      const body = frame.subarray(128).toString('utf8');
      expect(body.startsWith('{"version":1,"commit":12,"ready":true,')).toBe(true);
      expect(body).toBe(
        '{"version":1,"commit":12,"ready":true,"node":null,"role":"none","leader":null}',
      );
      expect(decodeHeader(frame)).toMatchObject({
        command: Command.Reply,
        operation: Operation.Ping,
        status: Status.Ok,
        commit: 12,
      });
    });

    it('tells a cluster node its id, its role and the leader’s address', () => {
      const follower = pingReply(ping(), 3, false, {
        node: 'n2',
        role: 'follower',
        leader: 'node1.example.com:7700',
      });
      expect(Object.keys(bodyOf(follower) as object)).toEqual([
        'version',
        'commit',
        'ready',
        'node',
        'role',
        'leader',
      ]);
      expect(bodyOf(follower)).toEqual({
        version: 1,
        commit: 3,
        ready: false,
        node: 'n2',
        role: 'follower',
        leader: 'node1.example.com:7700',
      });
    });

    it('says why a node stopped applying the journal, code and op only, after every other key', () => {
      const stopped = Object.assign(new Error('quotes a reply: secret-ish detail'), {
        code: 'JOURNAL_GROUP_UNVERIFIED',
        op: 39,
      });
      const frame = pingReply(
        ping(),
        38,
        false,
        { node: 'n1', role: 'none', leader: null },
        stopped,
      );
      const body = frame.subarray(128).toString('utf8');
      expect(body).toBe(
        '{"version":1,"commit":38,"ready":false,"node":"n1","role":"none","leader":null,"stoppedApplying":{"code":"JOURNAL_GROUP_UNVERIFIED","op":39}}',
      );
      expect(body).not.toContain('secret-ish');
    });

    it('answers a follower’s request NOT_READY, naming the leader in an additive key when it knows one', () => {
      const redirected = notLeaderAnswer(ping(), '10.0.0.1:7700', 7);
      expect(decodeHeader(redirected)).toMatchObject({
        command: Command.Reply,
        status: Status.NotReady,
        commit: 7,
      });
      expect(redirected.subarray(128).toString('utf8')).toBe(
        '{"ok":false,"error":{"code":"NOT_READY","message":"this node is a follower; the leader is at 10.0.0.1:7700","leader":"10.0.0.1:7700"}}',
      );
      expect(bodyOf(notLeaderAnswer(ping(), null, 7))).toEqual({
        ok: false,
        error: { code: 'NOT_READY', message: 'this node has no leader; retry later' },
      });
    });
  });
});
