import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EntryKind } from '@once/journal';
import { Command, type Frame, Operation, Status, randomClientId } from '@once/protocol';
import { RawClientClosedError, bodyJson, eventually, outcomeOf } from '@once/testing';
import {
  Connections,
  TestSession,
  expectAnswerTo,
  nextFrames,
  pingCommit,
  requestBytes,
} from '../support/wire';
import {
  type FlowControlNode,
  PASSWORD,
  USERNAME,
  deliver,
  journaledAfter,
  nodeEndOf,
  startFlowControlNode,
  authentications,
  tagAdmissions,
} from './support/flow-control';

/**
 * The gateway's two flow-control limits (GatewayOptions), each over real TCP
 * on 127.0.0.1 against an in-process node on a real LevelDB data directory:
 *
 * - pendingEntriesMax: journal entries admitted but not yet durable, across
 *   all sessions; at the limit the gateway stops reading instead of
 *   answering busy (PROTOCOL.md: "It never answers busy for a well-formed
 *   request").
 * - writeBufferBytesMax: reply bytes a peer left unread from earlier turns;
 *   past it the connection is closed (ONCE_WRITE_BUFFER_BYTES_MAX on the reference
 *   service; set on `new OnceServer(...)` here).
 */

const credentials = { username: USERNAME, password: PASSWORD };

const PENDING_LIMIT = 2;
const SESSIONS = 6;

describe(`given a node with pendingEntriesMax ${PENDING_LIMIT}, ${SESSIONS} bound sessions and a witness, whose journal writes are held`, () => {
  let root: string;
  let nodes = 0;
  let node: FlowControlNode;
  /** The node to close after the test, if one started. */
  let running: FlowControlNode | undefined;
  let connections: Connections;
  let witness: TestSession;
  let sessions: TestSession[];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'once-flow-control-pending-'));
  });
  beforeEach(async () => {
    node = await startFlowControlNode(join(root, `node-${++nodes}`), {
      pendingEntriesMax: PENDING_LIMIT,
    });
    running = node;
    connections = new Connections(() => node.port);
    witness = await TestSession.open(await connections.connect(), credentials);
    sessions = [];
    for (let i = 0; i < SESSIONS; i++) {
      sessions.push(await TestSession.open(await connections.connect(), credentials));
    }
  });
  afterEach(async () => {
    running?.writes.gate.open();
    tagAdmissions.open();
    connections?.destroyAll();
    await running?.app.close();
    running = undefined;
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  const tagOf = (index: number) => `tag-${index}`;

  /** What was journaled when the writes were held, and the COMMAND each session sent. */
  interface Held {
    /** The journal's last op before the COMMANDs. */
    readonly before: number;
    /** Group writes recorded before the COMMANDs. */
    readonly writesBefore: number;
    /** Each session's COMMAND (request 1), by session index. */
    readonly requests: Buffer[];
    /** Bytes each session's client had read before its COMMAND. */
    readonly bytesReadBefore: number[];
  }

  /**
   * Holds the journal's writes, then lets each session send its first COMMAND
   * in turn, each once the node has looked at the previous one.
   */
  async function sendCommandsWhileHeld(): Promise<Held> {
    const before = node.journal.lastOp;
    const writesBefore = node.writes.groups.length;
    const bytesReadBefore = sessions.map((session) => session.connection.socket.bytesRead);
    node.writes.gate.close();
    const requests: Buffer[] = [];
    for (const [index, session] of sessions.entries()) {
      const request = session.commandBytes('tags.add', { tag: tagOf(index) });
      session.next++;
      requests.push(request);
      await deliver(node, session.connection, request);
    }
    await eventually(
      () => node.journal.lastOp - before >= PENDING_LIMIT,
      `${PENDING_LIMIT} COMMANDs appended to the journal`,
    );
    return { before, writesBefore, requests, bytesReadBefore };
  }

  /**
   * What the sessions' requests put in the journal after `op`: each entry
   * as its kind and op, leaving out REPLY_CHECKs, the node's own record of
   * the replies of the COMMANDs applied before, which it journals with the
   * next write (the gateway admits none, so they are not what these tests count).
   */
  async function requestsJournaledAfter(op: number): Promise<Array<[string, number]>> {
    const journaled = await journaledAfter(node, op);
    return journaled
      .filter((entry) => entry.kind !== EntryKind.ReplyCheck)
      .map((entry): [string, number] => [EntryKind[entry.kind], entry.op]);
  }

  /** Each session's next frame: the answer to its COMMAND. */
  function answers(): Promise<Frame[]> {
    return Promise.all(sessions.map((session) => session.connection.next()));
  }

  it(`when ${SESSIONS} sessions each send a COMMAND, then only ${PENDING_LIMIT} are journaled and the others wait, neither answered nor refused, while a PING on another connection is answered`, async () => {
    const held = await sendCommandsWhileHeld();

    // Every COMMAND reached the gateway; only the limit's worth is in the journal.
    expect(node.journal.pendingCount).toBe(PENDING_LIMIT);
    expect(node.journal.lastOp - held.before).toBe(PENDING_LIMIT);
    expect(node.journal.durableOp).toBe(held.before);
    // One group write started (and is held); the second entry queues behind it.
    expect(node.writes.groups.slice(held.writesBefore)).toEqual([{ entries: 1, pending: 1 }]);
    expect(node.writes.gate.waiting).toBe(1);

    const ping = await witness.connection.ping();
    expect(ping.header).toMatchObject({ command: Command.Reply, status: Status.Ok });
    expect(bodyJson(ping)).toEqual({
      version: 1,
      commit: held.before,
      ready: true,
      node: null,
      role: 'none',
      leader: null,
    });

    // Nothing was sent to any session: no reply, no busy, no error.
    expect(sessions.map((session) => session.connection.socket.bytesRead)).toEqual(
      held.bytesReadBefore,
    );
    // Serving the witness admitted none of the waiting COMMANDs.
    expect(node.journal.lastOp - held.before).toBe(PENDING_LIMIT);
  });

  it(`when the held writes go, then each of the ${SESSIONS} COMMANDs is answered OK as the first frame on its connection, committed once in its own op, and a retry gets the cached reply byte for byte`, async () => {
    const held = await sendCommandsWhileHeld();

    node.writes.gate.open();
    const replies = await answers();

    replies.forEach((reply, index) => {
      expectAnswerTo(reply, held.requests[index], {
        command: Command.Reply,
        status: Status.Ok,
        watermark: 1,
        replicated: true,
      });
      expect(outcomeOf(reply)).toEqual({
        ok: true,
        result: { tag: tagOf(index), op: reply.header.op },
      });
    });
    const ops = replies.map((reply) => reply.header.op).sort((a, b) => a - b);
    // The journal holds each COMMAND once, in the op its reply names.
    expect(await requestsJournaledAfter(held.before)).toEqual(
      ops.map((op) => [EntryKind[EntryKind.Command], op]),
    );
    // Nothing is journaled while idle: the last COMMAND ends the journal.
    const lastOp = ops[SESSIONS - 1];
    expect(node.journal.lastOp).toBe(lastOp);

    for (const [index, session] of sessions.entries()) {
      session.connection.write(held.requests[index]);
      const retried = await session.connection.next();
      expect(retried.raw.equals(replies[index].raw)).toBe(true);
    }

    expect(await pingCommit(witness.connection)).toBe(lastOp);
    expect(node.journal.lastOp).toBe(lastOp);
    const tags = await witness.connection.query(witness.client, witness.epoch, 'tags.all', {});
    expect(outcomeOf(tags)).toEqual({
      ok: true,
      result: sessions.map((_, index) => tagOf(index)).sort(),
    });
  });

  it('when a waiting connection keeps sending PINGs, then the node stops reading it and answers them only once the journal moved on', async () => {
    const held = await sendCommandsWhileHeld();
    const waiting = sessions[PENDING_LIMIT];
    const end = nodeEndOf(node, waiting.connection);
    const pings = 100;

    waiting.connection.write(
      Buffer.concat(
        Array.from({ length: pings }, () => requestBytes({ operation: Operation.Ping })),
      ),
    );

    // The frames wait behind the COMMAND; past a bounded queue the socket is paused (TCP backpressure).
    await eventually(() => end.socket.isPaused(), 'the node to stop reading the connection');
    const witnessPing = await witness.connection.ping();
    expect(bodyJson(witnessPing)).toMatchObject({ commit: held.before, ready: true });
    expect(waiting.connection.socket.bytesRead).toBe(held.bytesReadBefore[PENDING_LIMIT]);
    expect(node.journal.pendingCount).toBe(PENDING_LIMIT);

    node.writes.gate.open();
    const frames = await nextFrames(waiting.connection, 1 + pings);

    const reply = frames.find((frame) => frame.header.operation === Number(Operation.Command));
    expect(reply).toBeDefined();
    expectAnswerTo(reply!, held.requests[PENDING_LIMIT], {
      command: Command.Reply,
      status: Status.Ok,
      watermark: 1,
      replicated: true,
    });
    const pingReplies = frames.filter((frame) => frame !== reply);
    expect(pingReplies).toHaveLength(pings);
    for (const frame of pingReplies) {
      expect(frame.header).toMatchObject({
        command: Command.Reply,
        operation: Operation.Ping,
        status: Status.Ok,
      });
      // Answered after the held write went through, not while it was held.
      expect((bodyJson(frame) as { commit: number }).commit).toBeGreaterThan(held.before);
    }
    expect(end.socket.isPaused()).toBe(false);
  });

  it(`when the held writes go, then the waiting COMMANDs are journaled no more than ${PENDING_LIMIT} at a time`, async () => {
    const held = await sendCommandsWhileHeld();
    const writesHeld = node.writes.groups.length;

    node.writes.gate.open();
    await answers();

    expect((await requestsJournaledAfter(held.before)).map(([kind]) => kind)).toEqual(
      sessions.map(() => EntryKind[EntryKind.Command]),
    );
    expect(node.writes.peakSince(writesHeld).entries).toBeLessThanOrEqual(PENDING_LIMIT);
    expect(node.writes.peakSince(writesHeld).pending).toBeLessThanOrEqual(PENDING_LIMIT);
  });

  it(`when REGISTERs arrive while the journal is full, then they wait and, once the writes go, are journaled no more than ${PENDING_LIMIT} at a time and each answered OK`, async () => {
    const held = await sendCommandsWhileHeld();
    const writesHeld = node.writes.groups.length;
    const newcomers = await Promise.all(
      Array.from({ length: SESSIONS }, () => connections.connect()),
    );
    const checksBefore = authentications.finished;
    const registers = newcomers.map(() =>
      requestBytes(
        { operation: Operation.Register, client: randomClientId() },
        JSON.stringify(credentials),
      ),
    );
    for (const [index, newcomer] of newcomers.entries()) {
      await deliver(node, newcomer, registers[index]);
    }
    // Past their credential check, they can only be waiting for room in the journal.
    await eventually(
      () => authentications.finished - checksBefore >= SESSIONS,
      'the REGISTERs passed their credential check',
    );
    expect(node.journal.lastOp).toBe(held.before + PENDING_LIMIT);
    expect(newcomers.map((newcomer) => newcomer.socket.bytesRead)).toEqual(newcomers.map(() => 0));

    node.writes.gate.open();
    const replies = await Promise.all(newcomers.map((newcomer) => newcomer.next()));
    await answers();

    for (const reply of replies) {
      expect(reply.header).toMatchObject({
        command: Command.Reply,
        operation: Operation.Register,
        status: Status.Ok,
      });
    }
    // Each REGISTER's epoch is its own op, after the held COMMANDs.
    const epochs = replies.map((reply) => reply.header.session).sort((a, b) => a - b);
    expect(new Set(epochs).size).toBe(SESSIONS);
    const journaled = await requestsJournaledAfter(held.before);
    expect(journaled).toHaveLength(2 * SESSIONS);
    const ofKind = (kind: EntryKind) =>
      journaled.filter(([name]) => name === EntryKind[kind]).map(([, op]) => op);
    expect(ofKind(EntryKind.Register)).toEqual(epochs);
    expect(ofKind(EntryKind.Command)).toHaveLength(SESSIONS);
    expect(journaled.slice(0, PENDING_LIMIT).map(([kind]) => kind)).toEqual(
      Array.from({ length: PENDING_LIMIT }, () => EntryKind[EntryKind.Command]),
    );
    expect(node.writes.peakSince(writesHeld).pending).toBeLessThanOrEqual(PENDING_LIMIT);
  });

  it(`when the COMMANDs' admission step is asynchronous, then no more than ${PENDING_LIMIT} are journaled while the writes are held`, async () => {
    const before = node.journal.lastOp;
    node.writes.gate.close();
    tagAdmissions.close();
    for (const [index, session] of sessions.entries()) {
      const request = session.commandBytes('tags.add', { tag: tagOf(index) });
      session.next++;
      await deliver(node, session.connection, request);
    }
    await eventually(() => tagAdmissions.waiting >= PENDING_LIMIT, 'admission steps under way');

    tagAdmissions.open();
    await eventually(
      () => node.journal.lastOp - before >= PENDING_LIMIT,
      `${PENDING_LIMIT} COMMANDs appended to the journal`,
    );

    expect(node.journal.pendingCount).toBeLessThanOrEqual(PENDING_LIMIT);
    expect(node.journal.lastOp - before).toBeLessThanOrEqual(PENDING_LIMIT);
  });
});

const WRITE_LIMIT = 256 * 1024;
const REPLY_BYTES = 16 * 1024;
/** Far more replies than loopback socket buffers hold: a node that never closes fails the test. */
const MAX_UNREAD_QUERIES = (64 * 1024 * 1024) / REPLY_BYTES;

describe(`given a node with writeBufferBytesMax ${WRITE_LIMIT} and a witness connected the whole time`, () => {
  let root: string;
  let node: FlowControlNode;
  let connections: Connections;
  let witness: TestSession;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'once-flow-control-write-buffer-'));
    node = await startFlowControlNode(join(root, 'node'), { writeBufferBytesMax: WRITE_LIMIT });
    connections = new Connections(() => node.port);
    witness = await TestSession.open(await connections.connect(), credentials);
  });
  afterAll(async () => {
    connections?.destroyAll();
    await node?.app.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  const blobQuery = (session: TestSession, bytes = REPLY_BYTES) =>
    session.queryBytes('blob.read', { bytes });

  /** Every frame `session` receives until the connection ends. */
  async function framesUntilClosed(session: TestSession): Promise<Frame[]> {
    const frames: Frame[] = [];
    for (;;) {
      try {
        frames.push(await session.connection.next());
      } catch (error) {
        if (error instanceof RawClientClosedError) return frames;
        throw error;
      }
    }
  }

  /** The witness is served: PING, QUERY and COMMAND. */
  async function expectWitnessServed(): Promise<void> {
    expect(bodyJson(await witness.connection.ping())).toMatchObject({ ready: true });
    const query = blobQuery(witness, 10);
    witness.connection.write(query);
    const read = await witness.connection.next();
    expectAnswerTo(read, query, { command: Command.Reply, status: Status.Ok });
    expect(outcomeOf(read)).toEqual({ ok: true, result: 'x'.repeat(10) });
    const { reply } = await witness.command('tags.add', { tag: `witness-${witness.next}` });
    expect(reply.header).toMatchObject({ command: Command.Reply, status: Status.Ok });
    expect(outcomeOf(reply)).toMatchObject({ ok: true });
  }

  it(`when a bound peer keeps sending QUERYs for ${REPLY_BYTES}-byte replies and never reads, then the node closes that connection once its unread replies pass the limit, dropping them, and keeps serving the witness`, async () => {
    const peer = await TestSession.open(await connections.connect(), credentials);
    peer.connection.socket.pause();
    const end = nodeEndOf(node, peer.connection);
    const query = blobQuery(peer);

    let sent = 0;
    while (!end.closed && sent < MAX_UNREAD_QUERIES) {
      // One at a time: the node answers each before it sees the next.
      await deliver(node, peer.connection, query);
      sent++;
    }

    expect(end.closed).toBe(true);
    // Not closed before more than the limit's worth of replies went unread.
    expect(sent * REPLY_BYTES).toBeGreaterThan(WRITE_LIMIT);

    // Reading at last, the peer finds fewer replies than it asked for, then the connection's end.
    peer.connection.socket.resume();
    const received = await framesUntilClosed(peer);
    expect(received.length).toBeLessThan(sent);
    for (const frame of received) {
      expectAnswerTo(frame, query, { command: Command.Reply, status: Status.Ok });
    }

    await expectWitnessServed();
  });

  it(`when a peer that reads its replies sends many more such QUERYs one after the other, then it gets every reply and stays open`, async () => {
    const peer = await TestSession.open(await connections.connect(), credentials);
    const query = blobQuery(peer);
    const count = (16 * WRITE_LIMIT) / REPLY_BYTES;

    for (let i = 0; i < count; i++) await deliver(node, peer.connection, query);
    const replies = await nextFrames(peer.connection, count);

    for (const reply of replies) {
      expectAnswerTo(reply, query, { command: Command.Reply, status: Status.Ok });
      expect(reply.body.length).toBeGreaterThan(REPLY_BYTES);
    }
    expect(peer.connection.closed).toBe(false);
    expect(nodeEndOf(node, peer.connection).closed).toBe(false);
    expect(bodyJson(await peer.connection.ping())).toMatchObject({ ready: true });
  });

  it('when a peer that reads its replies asks for one reply larger than the limit, then it gets that reply', async () => {
    const peer = await TestSession.open(await connections.connect(), credentials);
    const query = blobQuery(peer, 2 * WRITE_LIMIT);

    peer.connection.write(query);
    const reply = await peer.connection.next();

    expectAnswerTo(reply, query, { command: Command.Reply, status: Status.Ok });
    expect(peer.connection.closed).toBe(false);
  });

  it('when a peer that reads its replies sends QUERYs back to back whose replies together pass the limit, then it gets every reply', async () => {
    const peer = await TestSession.open(await connections.connect(), credentials);
    const query = blobQuery(peer);
    const count = (2 * WRITE_LIMIT) / REPLY_BYTES;

    peer.connection.write(Buffer.concat(Array.from({ length: count }, () => query)));
    const replies = await nextFrames(peer.connection, count);

    for (const reply of replies) {
      expectAnswerTo(reply, query, { command: Command.Reply, status: Status.Ok });
    }
    expect(peer.connection.closed).toBe(false);
  });
});
