import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, type DynamicModule, type INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Admit, Command as OnceCommand, OnceRuntime } from '@once/framework';
import { OnceServer } from '@once/gateway';
import { EntryKind } from '@once/journal';
import { type JournalEntry, JournalStore } from '@once/journal/internal';
import { type ClientId, Command, type Frame, Status, randomClientId } from '@once/protocol';
import {
  type RawClient,
  RawClientTimeoutError,
  bodyJson,
  outcomeOf,
  eventually,
  withJournalHooks,
} from '@once/testing';
import { AppModule, adminGenesis } from '../../apps/server/src/app.module';
import { Gate } from '../nest/support/gate';
import {
  ADMIN_PASSWORD,
  Connections,
  TestSession,
  accountName,
  expectAnswerTo,
  nextFrames,
  registerBytes,
} from '../support/wire';
import { CapturedLog } from './support/captured-log';
import { listenUntilReady } from '../support/listen-until-ready';

/** The error the fault injection throws in place of a failed LevelDB write. */
const INJECTED = 'EIO: injected disk failure (reliability test)';

/** Holds the journal's group writes, so requests are provably in flight when the disk fails. */
const writes = new Gate();
/** Holds the admission step of `probe.slow`, so a command is provably admitted but not yet journaled. */
const admissions = new Gate();
/** Flipped by the test: from then on every journal write fails. */
let diskFailing = false;

interface Node {
  readonly app: INestMicroservice;
  readonly port: number;
  readonly log: CapturedLog;
  readonly runtime: OnceRuntime;
}

/** A command whose admission step (like a password hash) takes as long as the test wants. */
@Controller()
class SlowProbeController {
  @Admit('probe.slow')
  async admit(data: { text: string }): Promise<{ text: string }> {
    await admissions.pass();
    return { text: data.text };
  }

  @OnceCommand('probe.slow')
  apply(data: { text: string }): { text: string } {
    return data;
  }
}

@Module({ controllers: [SlowProbeController] })
class SlowProbeModule {}

/** The reference service plus the slow probe, its journal writes going through the fault hook. */
@Module({})
class FaultyDiskModule {
  static register(dataDir: string): DynamicModule {
    return {
      module: FaultyDiskModule,
      imports: [
        AppModule.register(
          withJournalHooks(
            { dataDir, genesis: adminGenesis(ADMIN_PASSWORD) },
            {
              beforeWrite: async () => {
                await writes.pass();
                if (diskFailing) throw new Error(INJECTED);
              },
            },
          ),
        ),
        SlowProbeModule,
      ],
    };
  }
}

/** The node in this process, on `dataDir`, on any free port, logging into a CapturedLog. */
async function startNode(dataDir: string): Promise<Node> {
  const log = new CapturedLog();
  const strategy = new OnceServer({ port: 0 });
  const app = await NestFactory.createMicroservice(FaultyDiskModule.register(dataDir), {
    strategy,
    logger: log,
    abortOnError: false,
  });
  await listenUntilReady(app);
  return { app, port: strategy.address()!.port, log, runtime: app.get(OnceRuntime) };
}

/** The next frame, or undefined when none arrives within `ms` (a request left unanswered). */
async function nextOrNothing(connection: RawClient, ms = 3000): Promise<Frame | undefined> {
  try {
    return await connection.next(ms);
  } catch (error) {
    if (error instanceof RawClientTimeoutError) return undefined;
    throw error;
  }
}

/** Every entry of the journal in `dataDir` (the node must be closed). */
async function journalEntries(dataDir: string): Promise<JournalEntry[]> {
  const journal = await JournalStore.open(dataDir);
  try {
    const entries: JournalEntry[] = [];
    for await (const batch of journal.readBatches(1)) entries.push(...batch);
    return entries;
  } finally {
    await journal.close();
  }
}

/**
 * Fail-stop on a disk failure (docs/concepts/architecture.md, "How it works": a failed write stops the
 * node from acknowledging anything; PROTOCOL.md NOT_READY "retry the same
 * frame later"). The journal write of a group holding three deposits and a
 * REGISTER fails; the node must answer none of them OK, refuse everything
 * after, say so in its log, and after a restart on the same data directory
 * hold none of them, so that their retries apply exactly once.
 */
describe('given an in-process node whose journal write fails while a group of requests is in flight', () => {
  let root: string;
  let dataDir: string;
  let node: Node | undefined;
  const connections = new Connections(() => node!.port);
  let session: TestSession;
  let account: string;
  /** The in-flight deposits (requests 3, 4, 5) as sent. */
  let inFlight: Buffer[];
  /** What the node sent back for them. */
  let inFlightAnswers: Frame[];
  /** A REGISTER in the same failed group, on another connection, and its answer. */
  let registerInFlight: Buffer;
  let registerClient: ClientId;
  let registerConnection: RawClient;
  let registerAnswer: Frame | undefined;
  /** A second session whose command was still in its admission step, and what it got. */
  let admitting: TestSession;
  let admittingRequest: Buffer;
  let admittingAnswers: Frame[];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'once-disk-failure-'));
    dataDir = join(root, 'data');
    node = await startNode(dataDir);
    session = await TestSession.open(await connections.connect());
    account = accountName('disk');
    const opened = await session.command('ledger.open', { account });
    expect(outcomeOf(opened.reply)).toMatchObject({ ok: true });
    const deposited = await session.command('ledger.deposit', { account, amount: 1 });
    expect(outcomeOf(deposited.reply)).toEqual({ ok: true, result: { balance: 1 } });

    // A command of another session, admitted and held in its admission step.
    admitting = await TestSession.open(await connections.connect());
    admissions.close();
    admittingRequest = admitting.commandBytes('probe.slow', { text: 'held' });
    admitting.next++;
    admitting.connection.write(admittingRequest);
    await eventually(() => admissions.waiting === 1, 'probe.slow held in its admission step');

    // Hold the next group write, fill it and the group behind it, then make the write fail.
    writes.close();
    inFlight = [3, 4, 5].map((request) =>
      session.commandBytes('ledger.deposit', { account, amount: 1 }, request),
    );
    session.next = 6;
    session.connection.write(Buffer.concat(inFlight));
    registerClient = randomClientId();
    registerConnection = await connections.connect();
    registerInFlight = registerBytes({ client: registerClient });
    registerConnection.write(registerInFlight);
    const journal = node.runtime.journal;
    await eventually(
      () => writes.waiting === 1 && journal.pendingCount === 4,
      'three deposits and a REGISTER admitted, the first write held',
    );

    diskFailing = true;
    writes.open();
    inFlightAnswers = await nextFrames(session.connection, 3);
    registerAnswer = await nextOrNothing(registerConnection);
    // The held admission finishes after the failure: its command can no longer be journaled.
    admittingAnswers = [];
    const first = await nextOrNothing(admitting.connection);
    if (first) admittingAnswers.push(first);
    admissions.open();
    for (;;) {
      const extra = await nextOrNothing(admitting.connection, 500);
      if (!extra) break;
      admittingAnswers.push(extra);
    }
  });

  afterAll(async () => {
    writes.open();
    admissions.open();
    connections.destroyAll();
    await node?.app.close().catch(() => undefined);
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('when the write fails, then every COMMAND in flight is answered NOT_READY (never OK), echoing its request', () => {
    const byRequest = [...inFlightAnswers].sort((a, b) => a.header.request - b.header.request);
    byRequest.forEach((answer, index) => {
      expectAnswerTo(answer, inFlight[index], {
        command: Command.Reply,
        status: Status.NotReady,
        op: 0,
      });
    });
  });

  it('when the write fails, then the REGISTER in flight in the same group is answered NOT_READY too (never OK, never left unanswered)', () => {
    expect(registerAnswer).toBeDefined();
    expectAnswerTo(registerAnswer!, registerInFlight, {
      command: Command.Reply,
      status: Status.NotReady,
      op: 0,
    });
  });

  it('when the write fails while a COMMAND of another session is still in its admission step, then that COMMAND is answered NOT_READY exactly once, and never OK', () => {
    expect(admittingAnswers.map((answer) => answer.header.status)).toEqual([Status.NotReady]);
    expectAnswerTo(admittingAnswers[0], admittingRequest, {
      command: Command.Reply,
      status: Status.NotReady,
      op: 0,
    });
  });

  it('when clients go on after the failure, then PING says ready:false and REGISTER, COMMAND and a resend of an in-flight request all get NOT_READY', async () => {
    const fresh = await connections.connect();
    const ping = await fresh.ping();
    expect(ping.header).toMatchObject({ command: Command.Reply, status: Status.Ok });
    expect(bodyJson(ping)).toMatchObject({ version: 1, ready: false });

    const register = registerBytes();
    fresh.write(register);
    expectAnswerTo(await fresh.next(), register, {
      command: Command.Reply,
      status: Status.NotReady,
      op: 0,
    });

    const next = session.commandBytes('ledger.deposit', { account, amount: 1 }, 6);
    session.connection.write(next);
    expectAnswerTo(await session.connection.next(), next, {
      command: Command.Reply,
      status: Status.NotReady,
      op: 0,
    });

    // The same frame again, on a connection that rebinds with the token.
    const retryConnection = await connections.connect();
    retryConnection.write(inFlight[0]);
    expectAnswerTo(await retryConnection.next(), inFlight[0], {
      command: Command.Reply,
      status: Status.NotReady,
      op: 0,
    });
    await session.connection.expectSilence(100);
  });

  it('when the log is read, then it says that the journal write failed, why, and that the node stops acknowledging writes', () => {
    const lines = node!.log.lines.filter((line) => line.includes(INJECTED));
    expect(lines.length).toBeGreaterThan(0);
    expect(node!.log.text).toMatch(
      /journal write failed, the node stops acknowledging writes: .*EIO: injected disk failure/,
    );
  });

  it('when the node is closed and the data directory reopened, then none of the failed group’s entries is in the journal', async () => {
    await node!.app.close();
    node = undefined;
    diskFailing = false;

    const entries = await journalEntries(dataDir);
    const mine = entries.filter((entry) => entry.client === session.client);
    expect(mine.map((entry) => [entry.kind, entry.request])).toEqual([
      [EntryKind.Register, 0],
      [EntryKind.Command, 1],
      [EntryKind.Command, 2],
    ]);
    expect(entries.filter((entry) => entry.client === registerClient)).toEqual([]);
    expect(
      entries
        .filter((entry) => entry.client === admitting.client)
        .map((entry) => [entry.kind, entry.request]),
    ).toEqual([[EntryKind.Register, 0]]);
    expect(entries.map((entry) => entry.op)).toEqual(entries.map((_, index) => index + 1));
  });

  it('when a fresh node serves the same directory, then the session resumes at watermark 2, the NOT_READY deposits are not applied, and resending them applies each exactly once', async () => {
    node = await startNode(dataDir);
    const connection = await connections.connect();
    const resumed = await TestSession.open(connection, { client: session.client });
    expect(resumed.registration.watermark).toBe(2);
    const balanceBefore = await connection.query(session.client, resumed.epoch, 'ledger.balance', {
      account,
    });
    expect(outcomeOf(balanceBefore)).toEqual({ ok: true, result: { balance: 1 } });

    // Resent under the new epoch with their original numbers and bodies.
    const resent = [3, 4, 5].map((request) =>
      resumed.commandBytes('ledger.deposit', { account, amount: 1 }, request),
    );
    connection.write(Buffer.concat(resent));
    const replies = await nextFrames(connection, 3);
    replies.forEach((reply, index) => {
      expectAnswerTo(reply, resent[index], {
        command: Command.Reply,
        status: Status.Ok,
        op: reply.header.op,
        commit: reply.header.op,
        watermark: 3 + index,
        replicated: true,
      });
      expect(outcomeOf(reply)).toEqual({ ok: true, result: { balance: 2 + index } });
    });

    // A second resend is a duplicate: the cached reply, byte for byte, nothing applied.
    connection.write(resent[0]);
    expect((await connection.next()).raw.equals(replies[0].raw)).toBe(true);
    const balanceAfter = await connection.query(session.client, resumed.epoch, 'ledger.balance', {
      account,
    });
    expect(outcomeOf(balanceAfter)).toEqual({ ok: true, result: { balance: 4 } });

    // The REGISTER that got NOT_READY succeeds when sent again.
    registerConnection.destroy();
    const again = await connections.connect();
    again.write(registerInFlight);
    const registered = await again.next();
    expectAnswerTo(registered, registerInFlight, {
      command: Command.Reply,
      status: Status.Ok,
      session: registered.header.op,
      op: registered.header.op,
      commit: registered.header.op,
      watermark: 0,
      replicated: true,
    });
  });
});
