import { type OnceClient } from '@once/sdk';
import { type ServiceProcess, eventually } from '@once/testing';
import {
  type KeyedDataDir,
  expectRecordsMatchSnapshot,
  ledgerAccounts,
  ledgerReferences,
  readKeyedDataDir,
} from '../support/keyed-data-dir';
import {
  LedgerWorkload,
  between,
  connectLedgerClients,
  runSeed,
  seededRandom,
} from '../support/ledger-workload';
import { runServiceToExit, startService } from '../support/wire';
import { KEYED_SNAPSHOT_COPY_KEY, opKey, readAll, withLevel } from './support/data-dir';

jest.setTimeout(600_000);

/**
 * Keyed state (the ledger's accounts and transfer references live in the
 * data directory's LevelDB and are written only with snapshots) against
 * crashes and damaged snapshots, through the built reference service.
 */

const VERIFIED =
  /verify: \d+ journal entries replayed from op 1, all intact; the replay at op (\d+) equals the snapshot taken there/;

/** How often `pattern` occurs in `text`. */
function occurrences(text: string, pattern: RegExp): number {
  return text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
}

/** `--verify` on the stopped directory; asserts it exits 0 having compared a snapshot, returns that op. */
async function expectVerified(dataDir: string): Promise<number> {
  const verified = await runServiceToExit({ ONCE_DATA_DIR: dataDir }, ['--verify']);
  const line = VERIFIED.exec(verified.output);
  if (!line || verified.code !== 0) {
    throw new Error(`--verify exited ${verified.code}:\n${verified.output.slice(-3000)}`);
  }
  return Number(line[1]);
}

const SEED = runSeed();

/**
 * SIGKILLs at random instants under ledger load: a directory killed at any
 * moment holds keyed records equal to its newest snapshot, that snapshot is
 * the replay of the journal up to it, and the boot restores it. Two shapes:
 * snapshots every 50 ops, a few changed records each; and snapshots every
 * 4000 ops with mostly new accounts, more changed records than one slice of
 * a snapshot's batch (2048), so a kill can land between slices.
 */
describe.each([
  {
    shape: 'a snapshot every 50 ops',
    snapshotEvery: 50,
    clients: 6,
    commands: 400,
    openShare: 0.1,
    rounds: 4,
    killAfter: [60, 300],
    recordsAtFirstKill: 1,
    snapshotsAtLeast: 5,
  },
  {
    shape: 'a snapshot every 4000 ops, most commands opening accounts',
    snapshotEvery: 4000,
    clients: 4,
    commands: 2000,
    openShare: 0.7,
    rounds: 3,
    killAfter: [600, 1200],
    recordsAtFirstKill: 2049,
    snapshotsAtLeast: 1,
  },
])(
  `given the reference service with $shape and 16 keyed records cached (seed ${SEED})`,
  ({
    snapshotEvery,
    clients: CLIENTS,
    commands: COMMANDS,
    openShare,
    rounds: ROUNDS,
    killAfter,
    recordsAtFirstKill,
    snapshotsAtLeast,
  }) => {
    let service: ServiceProcess;
    let clients: OnceClient[] = [];
    let load: LedgerWorkload;
    /** What each SIGKILL left on disk, read while the node was down. */
    const kills: Array<{ settled: number; dir: KeyedDataDir; verifiedAt: number; boot: string }> =
      [];

    beforeAll(async () => {
      service = await startService({
        ONCE_SNAPSHOT_EVERY_OPS: String(snapshotEvery),
        // Most reads miss the cache and go to LevelDB (getSync) under the restored generation.
        ONCE_KEYED_CACHE_ENTRIES: '16',
      });
    });
    afterAll(async () => {
      await Promise.allSettled(clients.map((client) => client.close({ force: true })));
      await service?.cleanup();
    });

    it('when clients open accounts, deposit and transfer, and the node is SIGKILLed at random instants in several rounds, then each killed directory holds records equal to its newest snapshot and to the replay of its journal, and every acknowledged command is in the balances', async () => {
      const random = seededRandom(SEED);
      clients = await connectLedgerClients(service, CLIENTS);
      load = await LedgerWorkload.start(clients, {
        commandsPerClient: COMMANDS,
        random,
        tag: 'kill',
        openShare,
      });

      for (let round = 0; round < ROUNDS; round++) {
        // A random instant: after a random number of commands, then a random moment more.
        await load.settledMore(between(random, killAfter[0], killAfter[1]));
        if (round === 0) {
          await eventually(
            () => /snapshot at op \d+ written/.test(service.logs),
            'a first snapshot written under load',
            120_000,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, between(random, 0, 40)));
        const settled = load.settled;
        await service.crash();

        const dir = await readKeyedDataDir(service.dataDir);
        const verifiedAt = await expectVerified(service.dataDir);
        const mark = service.logs.length;
        await service.restart();
        kills.push({ settled, dir, verifiedAt, boot: service.logs.slice(mark) });
      }
      await load.done;

      expect(load.anomalies).toEqual([]);
      expect(kills).toHaveLength(ROUNDS);
      // The first snapshot wrote every record there was: more than one slice in the second shape.
      const firstRecords = kills[0].dir.recomputed.counts.reduce(
        (sum, [, count]) => sum + count,
        0,
      );
      expect(firstRecords).toBeGreaterThanOrEqual(recordsAtFirstKill);
      for (const { settled, dir, verifiedAt, boot } of kills) {
        // Killed under load, with snapshots (and their records) written during it.
        expect(settled).toBeLessThan(CLIENTS * COMMANDS);
        expect(dir.snapshot.keyed).toBeDefined();
        // The records on disk are those of the newest snapshot, byte for byte: the
        // digest recomputed from them equals its marker, and the head names its op.
        expectRecordsMatchSnapshot(dir);
        // The replay of the journal from op 1 reaches that snapshot's bytes, and the
        // boot restores that same snapshot and replays the journal after it.
        expect(verifiedAt).toBe(dir.snapshotOp);
        expect(boot).toContain(`snapshot restored at op ${dir.snapshotOp}`);
        expect(boot).not.toMatch(/does not restore|unreadable|no snapshot restored/);
      }
      expect(occurrences(service.logs, /snapshot at op \d+ written/)).toBeGreaterThanOrEqual(
        snapshotsAtLeast,
      );
      // Transfers were applied (with references) and refused for lack of funds: both outcomes booked.
      expect(load.references.size).toBeGreaterThan(0);
      expect(load.insufficient).toBeGreaterThan(0);
      await load.expectBalances(clients[0]);
    });

    it('when the node is then stopped gracefully, then its last snapshot stands at the journal end, the records on disk are every balance and reference acknowledged, and --verify replays from op 1 to the same snapshot bytes', async () => {
      await Promise.all(clients.map((client) => client.close()));
      clients = [];
      expect(await service.stop()).toBe(0);

      const dir = await readKeyedDataDir(service.dataDir);
      expect(dir.snapshotOp).toBe(dir.lastOp);
      expectRecordsMatchSnapshot(dir);
      expect(ledgerAccounts(dir)).toEqual(Object.fromEntries(load.expected));
      expect(ledgerReferences(dir)).toEqual([...load.references].sort());
      expect(await expectVerified(service.dataDir)).toBe(dir.snapshotOp);
    });
  },
);

/**
 * A snapshot whose keyed records were overwritten by a newer snapshot
 * cannot be restored (KEYED_STATE_BEHIND): when the newest snapshot is
 * unreadable, boot does not take the older one with the newer records; it
 * replays the journal from op 1 into a new generation of records.
 */
describe('given a ledger with several snapshots of keyed records, killed, and its newest snapshot and that snapshot’s copy kept with the records damaged', () => {
  let service: ServiceProcess;
  let clients: OnceClient[] = [];
  let load: LedgerWorkload;
  let snapshotOps: number[];
  let damagedOp: number;

  beforeAll(async () => {
    service = await startService({ ONCE_SNAPSHOT_EVERY_OPS: '40', ONCE_KEYED_CACHE_ENTRIES: '16' });
    clients = await connectLedgerClients(service, 3);
    load = await LedgerWorkload.start(clients, {
      commandsPerClient: 120,
      random: seededRandom(SEED + 1),
      tag: 'behind',
    });
    await load.done;
    expect(load.anomalies).toEqual([]);
    await eventually(
      () => occurrences(service.logs, /snapshot at op \d+ written/) >= 3,
      'three snapshots written',
    );
    await Promise.all(clients.map((client) => client.close({ force: true })));
    clients = [];
    await service.crash();

    const { snapshot } = await readAll(service.dataDir);
    snapshotOps = snapshot.map((row) => row.op);
    expect(snapshotOps.length).toBeGreaterThanOrEqual(2);
    const newest = snapshot[snapshot.length - 1];
    damagedOp = newest.op;
    await withLevel(service.dataDir, async ({ snapshot: level, keyed }) => {
      const flipped = Buffer.from(newest.value);
      flipped[Math.floor(flipped.length / 2)] ^= 0x01;
      await level.put(opKey(newest.op), flipped);
      // The copy would restore it (see the corruption spec): it goes too.
      await keyed.del(KEYED_SNAPSHOT_COPY_KEY);
    });
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close({ force: true })));
    await service?.cleanup();
  });

  it('when the node starts, then it refuses the older snapshot as behind its records, replays the journal from op 1, and serves every acknowledged balance', async () => {
    const mark = service.logs.length;
    await service.restart();
    const boot = service.logs.slice(mark);
    expect(boot).toMatch(new RegExp(`snapshot at op ${damagedOp} is unreadable`));
    for (const op of snapshotOps.filter((op) => op !== damagedOp)) {
      expect(boot).toMatch(
        new RegExp(
          `snapshot at op ${op} does not restore \\(.*the snapshot at op ${op} has keyed state, and the keyed records on disk are those of op ${damagedOp}\\)`,
        ),
      );
    }
    expect(boot).toContain('no snapshot restored; replaying the journal from op 1');
    expect(boot).not.toMatch(/snapshot restored at op/);

    clients = await connectLedgerClients(service, 1);
    await load.expectBalances(clients[0]);
  });

  it('when more load brings a snapshot of the new records and the node is killed again, then it restores that snapshot, the old records are gone, and the balances hold', async () => {
    const mark = service.logs.length;
    const more = await LedgerWorkload.start(clients, {
      commandsPerClient: 100,
      random: seededRandom(SEED + 2),
      tag: 'after',
    });
    await more.done;
    expect(more.anomalies).toEqual([]);
    await eventually(
      () => /snapshot at op \d+ written/.test(service.logs.slice(mark)),
      'a snapshot of the new generation written',
    );
    await Promise.all(clients.map((client) => client.close({ force: true })));
    clients = [];
    await service.crash();

    const dir = await readKeyedDataDir(service.dataDir);
    expectRecordsMatchSnapshot(dir);
    expect(dir.snapshotOp).toBeGreaterThan(damagedOp);
    const restart = service.logs.length;
    await service.restart();
    expect(service.logs.slice(restart)).toContain(`snapshot restored at op ${dir.snapshotOp}`);

    clients = await connectLedgerClients(service, 1);
    await load.expectBalances(clients[0]);
    await more.expectBalances(clients[0]);
    await Promise.all(clients.map((client) => client.close()));
    clients = [];
    expect(await service.stop()).toBe(0);
    const stopped = await readKeyedDataDir(service.dataDir);
    expectRecordsMatchSnapshot(stopped);
    expect(stopped.otherGenerations).toEqual([]);
    expect(await expectVerified(service.dataDir)).toBe(stopped.snapshotOp);
  });
});

/**
 * Keyed records ahead of the journal: a corrupt entry below the newest
 * snapshot's op, cut with `--truncate-corrupt-tail --yes`, takes that
 * snapshot with it, while the records on disk still stand at its op. The
 * snapshot left is older than those records: refused, and the journal that
 * is left is replayed from op 1 into a new generation.
 */
describe('given a ledger whose journal is cut below its newest snapshot by --truncate-corrupt-tail', () => {
  let service: ServiceProcess;
  let clients: OnceClient[] = [];
  let load: LedgerWorkload;
  let snapshotOps: number[];
  let corruptOp: number;

  beforeAll(async () => {
    service = await startService({ ONCE_SNAPSHOT_EVERY_OPS: '40', ONCE_KEYED_CACHE_ENTRIES: '16' });
    clients = await connectLedgerClients(service, 1);
    // One client, one command at a time: the journal holds them in the order they were made.
    load = await LedgerWorkload.start(clients, {
      commandsPerClient: 150,
      window: 1,
      random: seededRandom(SEED + 3),
      tag: 'cut',
    });
    await load.done;
    expect(load.anomalies).toEqual([]);
    await Promise.all(clients.map((client) => client.close({ force: true })));
    clients = [];
    await service.crash();

    const { snapshot, journal } = await readAll(service.dataDir);
    snapshotOps = snapshot.map((row) => row.op);
    expect(snapshotOps.length).toBeGreaterThanOrEqual(2);
    const [older, newest] = snapshotOps.slice(-2);
    corruptOp = older + Math.ceil((newest - older) / 2);
    const value = journal.find((row) => row.op === corruptOp)!.value;
    await withLevel(service.dataDir, async ({ journal: level }) => {
      const flipped = Buffer.from(value);
      flipped[flipped.length - 3] ^= 0x04;
      await level.put(opKey(corruptOp), flipped);
    });
    const cut = await runServiceToExit({ ONCE_DATA_DIR: service.dataDir }, [
      '--truncate-corrupt-tail',
      '--yes',
    ]);
    expect(cut.code).toBe(0);
    expect(cut.output).toContain(`the journal now ends at op ${corruptOp - 1}`);
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close({ force: true })));
    await service?.cleanup();
  });

  it('when the node starts, then it refuses the snapshot left as behind the records, replays from op 1, and its state is the journal that is left', async () => {
    const { snapshot } = await readAll(service.dataDir);
    const left = snapshot.map((row) => row.op);
    expect(left.every((op) => op < corruptOp)).toBe(true);
    const newest = snapshotOps[snapshotOps.length - 1];

    const mark = service.logs.length;
    await service.restart();
    const boot = service.logs.slice(mark);
    for (const op of left) {
      expect(boot).toContain(
        `the snapshot at op ${op} has keyed state, and the keyed records on disk are those of op ${newest}`,
      );
    }
    expect(boot).toContain('no snapshot restored; replaying the journal from op 1');
    expect(boot).not.toMatch(/snapshot restored at op/);

    // The cut state is the replay of what is left, whatever the records on disk said.
    expect(await service.stop()).toBe(0);
    const dir = await readKeyedDataDir(service.dataDir);
    expect(dir.snapshotOp).toBeGreaterThanOrEqual(corruptOp - 1);
    expectRecordsMatchSnapshot(dir);
    expect(await expectVerified(service.dataDir)).toBe(dir.snapshotOp);
  });
});

/**
 * Checkpoints, at the service's defaults: scheduled snapshots come every
 * 100,000 ops, which this load never reaches, so every snapshot on disk is a
 * checkpoint written after a group commit. A kill leaves the records of the
 * newest one, with its sessions, and the boot replays only what came after.
 */
describe('given the reference service at its defaults (a checkpoint every 100 ms, scheduled snapshots every 100,000 ops)', () => {
  let service: ServiceProcess;
  let clients: OnceClient[] = [];
  let load: LedgerWorkload;

  beforeAll(async () => {
    service = await startService();
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close({ force: true })));
    await service?.cleanup();
  });

  it('when clients open accounts, deposit and transfer and the node is SIGKILLed under load, then the records on disk are the newest checkpoint’s, the boot restores it and replays only the journal after it, and every acknowledged command is in the balances', async () => {
    clients = await connectLedgerClients(service, 4);
    load = await LedgerWorkload.start(clients, {
      commandsPerClient: 300,
      random: seededRandom(SEED + 3),
      tag: 'checkpoint',
      openShare: 0.3,
    });
    await load.settledMore(600);
    await service.crash();

    const dir = await readKeyedDataDir(service.dataDir);
    // A checkpoint (no scheduled snapshot was due), with the sessions as records.
    expect(dir.snapshotOp).toBeGreaterThan(0);
    expect(dir.snapshotOp).toBeLessThan(100_000);
    expect(dir.snapshot.sessions).toBeDefined();
    expect(dir.records.get('once:sessions')?.size).toBe(dir.snapshot.sessions!.size);
    expectRecordsMatchSnapshot(dir);
    expect(await expectVerified(service.dataDir)).toBe(dir.snapshotOp);

    const mark = service.logs.length;
    await service.restart();
    const boot = service.logs.slice(mark);
    expect(boot).toContain(`snapshot restored at op ${dir.snapshotOp}`);
    const replayed = dir.lastOp - dir.snapshotOp;
    expect(boot).toMatch(
      replayed === 0
        ? /replay applied 0 entries/
        : new RegExp(`replay applied ${replayed} entries \\(ops ${dir.snapshotOp + 1}\\.\\.`),
    );

    // The sessions came back from their records: the clients go on where they were.
    await load.done;
    expect(load.anomalies).toEqual([]);
    await load.expectBalances(clients[0]);
  });
});
