import { decodeHeader } from '@once/protocol/internal';
import { randomClientId } from '@once/protocol';
import {
  RawClient,
  ServiceStartError,
  type ServiceProcess,
  eventually,
  outcomeOf,
} from '@once/testing';
import { PipelinedDepositor } from '../support/pipelined-depositor';
import { commandOk, queryResult, registerOk } from '../support/sessions';
import {
  TestSession,
  accountName,
  nextFrames,
  runServiceToExit,
  startService,
} from '../support/wire';
import { KEYED_SNAPSHOT_COPY_KEY, opKey, readAll, withLevel } from './support/data-dir';

/** What the service logged since `mark` (an earlier `service.logs.length`). */
function logsSince(service: ServiceProcess, mark: number): string {
  return service.logs.slice(mark);
}

/** A ledger balance read on `session`'s own connection. */
async function balanceOf(session: TestSession, account: string): Promise<number> {
  session.connection.write(session.queryBytes('ledger.balance', { account }));
  const outcome = outcomeOf(await session.connection.next());
  if (!outcome.ok) throw new Error(`balance refused: ${JSON.stringify(outcome.error)}`);
  return (outcome.result as { balance: number }).balance;
}

/**
 * Deposits of 1 to `account` under the session's next `count` request numbers,
 * pipelined in one write; returns the op each was committed at, by request.
 */
async function deposit(
  session: TestSession,
  account: string,
  count: number,
): Promise<Map<number, number>> {
  const first = session.next;
  const frames = Array.from({ length: count }, (_, index) =>
    session.commandBytes('ledger.deposit', { account, amount: 1 }, first + index),
  );
  session.next += count;
  session.connection.write(Buffer.concat(frames));
  const ops = new Map<number, number>();
  for (const reply of await nextFrames(session.connection, count)) {
    expect(reply.header.status).toBe(0);
    ops.set(reply.header.request, reply.header.op);
  }
  return ops;
}

/**
 * Corruption of the data directory (docs/concepts/architecture.md, "Replay": a corrupt entry stops
 * the boot with a message naming its op; a corrupt snapshot is skipped with a
 * warning), and the operator's tools for it (`--verify`,
 * `--truncate-corrupt-tail [--yes]`). The node is killed with SIGKILL, the
 * LevelDB directory is edited while it is down, and it is started again.
 */
describe.each([
  { where: 'a middle entry', corruptRequest: 6 },
  { where: 'the last entry (a torn tail)', corruptRequest: 11 },
])(
  'given a flipped byte in $where of the journal (node killed, data directory edited while down)',
  ({ corruptRequest }) => {
    let service: ServiceProcess;
    let session: TestSession;
    const account = accountName('corrupt');
    /** Request number → op of its commit. */
    let ops: Map<number, number>;
    /** The op whose entry is corrupted: the commit of request `corruptRequest`. */
    let corruptOp: number;
    let lastOp: number;
    let journalBefore: Array<{ op: number; value: Buffer }>;

    beforeAll(async () => {
      // No checkpoints: a boot replays only what follows the newest snapshot,
      // so one written after the corrupt op (100 ms after the open's, on a
      // loaded machine) would leave that entry unread at boot.
      service = await startService({ ONCE_CHECKPOINT_INTERVAL_MS: '0' });
      session = await TestSession.open(await RawClient.connect(service.port));
      await session.command('ledger.open', { account });
      ops = await deposit(session, account, 10); // requests 2..11
      await service.crash();
      session.connection.destroy();
      corruptOp = ops.get(corruptRequest)!;
      await withLevel(service.dataDir, async ({ journal }) => {
        const value = (await journal.get(opKey(corruptOp)))!;
        const flipped = Buffer.from(value);
        flipped[flipped.length - 3] ^= 0x04; // one bit of the body (the entry's checksum covers it)
        await journal.put(opKey(corruptOp), flipped);
      });
      const before = await readAll(service.dataDir);
      // The boot must replay the corrupt entry: no snapshot covers it.
      expect(before.snapshot.map((row) => row.op).filter((op) => op >= corruptOp)).toEqual([]);
      journalBefore = before.journal;
      lastOp = journalBefore[journalBefore.length - 1].op;
    });
    afterAll(() => service?.cleanup());

    it('when the service starts, then it refuses: exit code 1 and a message naming the corrupt op', async () => {
      const mark = service.logs.length;
      await expect(service.restart()).rejects.toBeInstanceOf(ServiceStartError);
      expect(await service.exited()).toBe(1);
      expect(logsSince(service, mark)).toMatch(
        new RegExp(`journal entry at op ${corruptOp} is corrupt`),
      );
    });

    it('when --truncate-corrupt-tail runs without --yes, then it changes nothing and says which ops it would drop', async () => {
      const { code, output } = await runServiceToExit({ ONCE_DATA_DIR: service.dataDir }, [
        '--truncate-corrupt-tail',
      ]);
      expect(code).toBe(1);
      expect(output).toMatch(new RegExp(`journal entry at op ${corruptOp} is corrupt`));
      expect(output).toContain(
        `would drop ops ${corruptOp} to ${lastOp} (${lastOp - corruptOp + 1})`,
      );
      const after = (await readAll(service.dataDir)).journal;
      expect(after.length).toBe(journalBefore.length);
      after.forEach((row, index) => {
        expect(row.op).toBe(journalBefore[index].op);
        expect(row.value.equals(journalBefore[index].value)).toBe(true);
      });
    });

    it('when --truncate-corrupt-tail --yes runs, then it drops the tail from the corrupt op, says how many ops, and the journal ends just before it', async () => {
      const { code, output } = await runServiceToExit({ ONCE_DATA_DIR: service.dataDir }, [
        '--truncate-corrupt-tail',
        '--yes',
      ]);
      expect(code).toBe(0);
      expect(output).toContain(
        `dropped ${lastOp - corruptOp + 1} ops (from op ${corruptOp}); the journal now ends at op ${corruptOp - 1}`,
      );
      const after = (await readAll(service.dataDir)).journal;
      expect(after.map((row) => row.op)).toEqual(
        Array.from({ length: corruptOp - 1 }, (_, index) => index + 1),
      );
      after.forEach((row, index) =>
        expect(row.value.equals(journalBefore[index].value)).toBe(true),
      );
    });

    it('when the service starts again, then it serves, and a client resuming by REGISTER learns from the watermark which requests survived; resending the others applies each once', async () => {
      await service.restart();
      const resumed = await TestSession.open(await RawClient.connect(service.port), {
        client: session.client,
      });
      try {
        // Requests before the corrupt one committed before its op; it and those after were cut.
        const survived = corruptRequest - 1;
        expect(resumed.registration.watermark).toBe(survived);
        expect(await balanceOf(resumed, account)).toBe(survived - 1); // request 1 opened the account
        resumed.next = corruptRequest;
        await deposit(resumed, account, 11 - survived);
        expect(await balanceOf(resumed, account)).toBe(10);
      } finally {
        resumed.connection.destroy();
      }
    });
  },
);

describe('given snapshots every 10 ops, then a snapshot with a bad checksum, then truncated snapshots', () => {
  let service: ServiceProcess;
  const client = randomClientId();
  const account = accountName('snap');
  const DEPOSITS = 40;

  async function expectCompleteState(): Promise<void> {
    const session = await TestSession.open(await RawClient.connect(service.port), { client });
    try {
      expect(session.registration.watermark).toBe(1 + DEPOSITS);
      expect(await balanceOf(session, account)).toBe(DEPOSITS);
    } finally {
      session.connection.destroy();
    }
  }

  beforeAll(async () => {
    service = await startService({ ONCE_SNAPSHOT_EVERY_OPS: '10' });
    const session = await TestSession.open(await RawClient.connect(service.port), { client });
    await session.command('ledger.open', { account });
    for (let round = 0; round < DEPOSITS / 8; round++) await deposit(session, account, 8);
    // At least two snapshots were written before the kill (the disk is read afterwards anyway).
    await eventually(
      () => (service.logs.match(/snapshot at op \d+ written/g)?.length ?? 0) >= 2,
      'two "snapshot at op … written" lines in the logs',
      10_000,
    );
    session.connection.destroy();
    await service.crash();
  });
  afterAll(() => service?.cleanup());

  it('when the newest snapshot has a flipped byte, then the service starts anyway, warns, restores it from the copy kept with the ledger’s keyed records, and its state is complete', async () => {
    const { snapshot } = await readAll(service.dataDir);
    expect(snapshot.length).toBeGreaterThanOrEqual(2);
    const newest = snapshot[snapshot.length - 1];
    await withLevel(service.dataDir, async ({ snapshot: level }) => {
      const flipped = Buffer.from(newest.value);
      flipped[Math.floor(flipped.length / 2)] ^= 0x01;
      await level.put(opKey(newest.op), flipped);
    });

    const mark = service.logs.length;
    await service.restart();
    const logs = logsSince(service, mark);
    // The ledger keeps keyed records, written with each snapshot, with a copy of it: an
    // older snapshot could not describe those records, the copy does.
    expect(logs).toContain(
      `snapshot at op ${newest.op} is corrupt: checksum mismatch; the copy written with the keyed records is used`,
    );
    expect(logs).toContain(`snapshot restored at op ${newest.op}`);
    try {
      await expectCompleteState();
    } finally {
      await service.crash();
    }
  });

  it('when every snapshot is truncated (one below its header, one to half its length), then the service warns for each, replays the whole journal, and its state is complete', async () => {
    const { snapshot } = await readAll(service.dataDir);
    expect(snapshot.length).toBeGreaterThanOrEqual(2);
    await withLevel(service.dataDir, async ({ snapshot: level, keyed }) => {
      for (const [index, row] of snapshot.entries()) {
        const length = index === 0 ? 10 : Math.floor(row.value.length / 2);
        await level.put(opKey(row.op), Buffer.from(row.value.subarray(0, length)));
      }
      // The newest snapshot's copy, kept with the keyed records, goes too.
      await keyed.del(KEYED_SNAPSHOT_COPY_KEY);
    });

    const mark = service.logs.length;
    await service.restart();
    const logs = logsSince(service, mark);
    expect(logs).toMatch(
      new RegExp(`snapshot at op ${snapshot[0].op} is unreadable \\(.*truncated`),
    );
    for (const row of snapshot.slice(1)) {
      expect(logs).toMatch(new RegExp(`snapshot at op ${row.op} is unreadable`));
    }
    expect(logs).toContain('no snapshot restored; replaying the journal from op 1');
    expect(logs).not.toMatch(/snapshot restored at op/);
    await expectCompleteState();
  });
});

describe('given a healthy data directory left by a graceful stop', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await startService();
    const session = await TestSession.open(await RawClient.connect(service.port));
    const account = accountName('verify');
    await session.command('ledger.open', { account });
    await deposit(session, account, 12);
    session.connection.destroy();
    expect(await service.stop()).toBe(0);
  });
  afterAll(() => service?.cleanup());

  it('when --verify runs, then it exits 0 and says the replay from op 1 equals the snapshot', async () => {
    // The stop writes a snapshot, or finds the newest checkpoint already covers the journal.
    const snapshotOp = /snapshot at op (\d+) (?:written|is current)/.exec(service.logs)![1];
    const { code, output } = await runServiceToExit({ ONCE_DATA_DIR: service.dataDir }, [
      '--verify',
    ]);
    expect(output).toMatch(
      new RegExp(
        `verify: \\d+ journal entries replayed from op 1, all intact; the replay at op ${snapshotOp} equals the snapshot taken there`,
      ),
    );
    expect(code).toBe(0);
  });
});

/**
 * Kills around snapshot writes: with a snapshot every 200 ops, a pipelined
 * client keeps depositing while the node is killed with SIGKILL just as a
 * snapshot is due, right after a "snapshot at op" line appears, at an
 * arbitrary moment, and stopped with SIGTERM under load. Every restart must
 * reach ready, and every reply must show exactly the acknowledged deposits
 * applied (the depositor checks each reply's balance against its number).
 */
describe('given ONCE_SNAPSHOT_EVERY_OPS=200 and a client keeping 8 deposits in flight while the node is killed around its snapshot writes', () => {
  const TOTAL = 900;
  const account = 'snapshot-kills';
  const client = randomClientId();
  let service: ServiceProcess;
  let depositor: PipelinedDepositor;
  const stops: Array<{
    how: string;
    acknowledged: number;
    exitCode?: number | null;
    /** What the node logged from the signal to its exit. */
    logs?: string;
  }> = [];

  beforeAll(async () => {
    service = await startService({ ONCE_SNAPSHOT_EVERY_OPS: '200' });
    const setup = await RawClient.connect(service.port);
    const admin = (await registerOk(setup, randomClientId())).session;
    await commandOk(setup, admin, 1, 'ledger.open', { account });
    const session = (await registerOk(setup, client)).session;
    setup.destroy();

    let back: Promise<void> = Promise.resolve();
    let logMark = 0;
    let stage = 0;
    let stageStart = 0;
    const kill = (how: string, acknowledged: number): true => {
      stops.push({ how, acknowledged });
      stage++;
      stageStart = acknowledged;
      const entry = stops[stops.length - 1];
      const before = service.logs.length;
      const down =
        how === 'SIGTERM under load'
          ? service.stop().then((code) => {
              entry.exitCode = code;
              entry.logs = service.logs.slice(before);
            })
          : service.crash();
      back = down.then(() => {
        logMark = service.logs.length;
        return service.restart();
      });
      return true;
    };

    depositor = new PipelinedDepositor({
      port: () => service.port,
      session,
      account,
      total: TOTAL,
      window: 8,
      resumeBy: (resume) => (resume % 2 === 0 ? 'register' : 'token'),
      nodeBack: () => back,
      onAck: (acknowledged) => {
        const op = decodeHeader(depositor.replies.get(acknowledged)!).op;
        switch (stage) {
          case 0: // The 200th op just committed: its snapshot is being captured and written.
            return op >= 200 && kill('SIGKILL as a snapshot is due', acknowledged);
          case 1: // The first reply read after the node logged a snapshot write.
            return (
              /snapshot at op \d+ written/.test(service.logs.slice(logMark)) &&
              kill('SIGKILL right after a snapshot log line', acknowledged)
            );
          case 2:
            return acknowledged >= stageStart + 77 && kill('SIGKILL mid-flow', acknowledged);
          case 3:
            return acknowledged >= stageStart + 150 && kill('SIGTERM under load', acknowledged);
          default:
            return false;
        }
      },
    });
    await depositor.run();
    await back;
  });
  afterAll(() => service?.cleanup());

  it('when the run ends, then the node was stopped at each planned moment, the SIGTERM exited 0 after writing a snapshot, and every restart reached ready', () => {
    expect(stops.map((stop) => stop.how)).toEqual([
      'SIGKILL as a snapshot is due',
      'SIGKILL right after a snapshot log line',
      'SIGKILL mid-flow',
      'SIGTERM under load',
    ]);
    expect(stops[3].exitCode).toBe(0);
    expect(stops[3].logs).toMatch(
      /SIGTERM: stopping[\s\S]*snapshot at op \d+ (written|is current)/,
    );
    // Snapshots were really in play: some restart restored one.
    expect(service.logs).toMatch(/snapshot restored at op \d+/);
    expect(depositor.resumes).toHaveLength(4);
    expect(service.logs.match(/ready at op \d+/g)?.length).toBe(5);
    for (const resume of depositor.resumes) {
      if (resume.watermark === undefined) continue;
      expect(resume.watermark).toBeGreaterThanOrEqual(resume.highestAcked);
      expect(resume.watermark).toBeLessThanOrEqual(resume.highestSent);
    }
  });

  it('when every reply is checked, then each deposit 1..N was acknowledged once, in order, with the balance of exactly the deposits before it', () => {
    expect(depositor.anomalies).toEqual([]);
    expect([...depositor.acknowledgements.keys()].sort((a, b) => a - b)).toEqual(
      Array.from({ length: TOTAL }, (_, index) => index + 1),
    );
    expect([...depositor.acknowledgements.values()].every((times) => times === 1)).toBe(true);
  });

  it('when the node is killed once more and restarted, then the state is exactly the acknowledged deposits', async () => {
    await service.crash();
    await service.restart();
    const raw = await RawClient.connect(service.port);
    try {
      const { session } = await registerOk(raw, client);
      expect(session.watermark).toBe(TOTAL);
      expect(await queryResult(raw, session, 'ledger.balance', { account })).toEqual({
        balance: TOTAL,
      });
    } finally {
      raw.destroy();
    }
  });
});
