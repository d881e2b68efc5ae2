import { SessionEvictedException, NotBoundException } from '@once/framework';
import { Command, EvictionReason, Operation, Status, type Frame } from '@once/protocol';
import {
  checksum,
  clientIdFromBigInt,
  decodeHeader,
  encodeFrame,
  FrameDecoder,
} from '@once/protocol/internal';
import {
  answerFrame,
  badFrameReply,
  evictionAnswer,
  inFlightNotReady,
  notLeaderAnswer,
  pingReply,
  sessionRefusalFrame,
  unaskedEviction,
} from './gateway-answers';

const CLIENT = clientIdFromBigInt(0xc1n);

function bodyOf(frame: Buffer): unknown {
  return JSON.parse(frame.subarray(128).toString('utf8'));
}

/** A request as the gateway holds it once decoded: `operation` of `client`, session 4, request 9. */
function requestOf(operation: Operation, body = ''): Frame {
  const decoder = new FrameDecoder();
  decoder.push(
    encodeFrame(
      { command: Command.Request, operation, client: CLIENT, session: 4, request: 9 },
      body,
    ),
  );
  const result = decoder.next();
  if (result?.kind !== 'frame') throw new Error('the request did not decode');
  return result.frame;
}

describe('the gateway’s answers', () => {
  it('echoes the request it refuses: client, session, request and its body checksum; op and time 0', () => {
    const request = requestOf(Operation.Command, '{"pattern":"p","data":1}');
    const frame = answerFrame(request, Status.EpochAhead, 'ahead', 5, 3);
    const header = decodeHeader(frame);
    expect(header).toMatchObject({
      command: Command.Reply,
      operation: Operation.Command,
      status: Status.EpochAhead,
      client: CLIENT,
      session: 4,
      request: 9,
      op: 0,
      timestamp: 0n,
      commit: 5,
      watermark: 3,
    });
    expect(header.resumeToken.equals(checksum(Buffer.from('{"pattern":"p","data":1}')))).toBe(true);
    expect(bodyOf(frame)).toEqual({ ok: false, error: { code: 'EPOCH_AHEAD', message: 'ahead' } });
  });

  it('maps a session refusal to the frame PROTOCOL.md names for it', () => {
    const request = requestOf(Operation.Command);
    const evicted = sessionRefusalFrame(
      request,
      new SessionEvictedException(EvictionReason.Superseded, 6),
      5,
    );
    expect(decodeHeader(evicted)).toMatchObject({
      command: Command.Eviction,
      status: EvictionReason.Superseded,
      request: 9,
      watermark: 6,
    });
    expect(evicted.length).toBe(128);
    expect(evicted.equals(evictionAnswer(request, EvictionReason.Superseded, 5, 6))).toBe(true);
    const unbound = sessionRefusalFrame(request, new NotBoundException(), 5);
    expect(decodeHeader(unbound)).toMatchObject({
      command: Command.Reply,
      status: Status.NotBound,
    });
  });

  it('sends an EVICTION nobody asked for under operation 0 and request 0', () => {
    const frame = unaskedEviction(CLIENT, 4, EvictionReason.Superseded, 8, 2);
    expect(decodeHeader(frame)).toMatchObject({
      command: Command.Eviction,
      operation: 0,
      status: EvictionReason.Superseded,
      client: CLIENT,
      session: 4,
      request: 0,
      commit: 8,
      watermark: 2,
    });
  });

  it('answers a framing failure with no request to echo, and a request in flight at a journal failure NOT_READY', () => {
    expect(decodeHeader(badFrameReply(Status.BadFrame, 'bad size', 4))).toMatchObject({
      command: Command.Reply,
      operation: 0,
      status: Status.BadFrame,
      commit: 4,
    });
    const frame = inFlightNotReady(
      {
        client: CLIENT,
        epoch: 4,
        request: 9,
        operation: Operation.Command,
        checksum: Buffer.alloc(16, 7),
      },
      'stopped',
      9,
    );
    expect(decodeHeader(frame)).toMatchObject({
      status: Status.NotReady,
      client: CLIENT,
      session: 4,
      request: 9,
      commit: 9,
    });
    expect(bodyOf(frame)).toEqual({ ok: false, error: { code: 'NOT_READY', message: 'stopped' } });
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
