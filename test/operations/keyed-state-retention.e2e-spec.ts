import { type OnceClient } from '@once/sdk';
import { type ServiceProcess, ServiceStartError, eventually } from '@once/testing';
import {
  KEYED_SNAPSHOT_COPY_KEY,
  opKey,
  readAll,
  withLevel,
} from '../reliability/support/data-dir';
import {
  expectRecordsMatchSnapshot,
  ledgerAccounts,
  readKeyedDataDir,
} from '../support/keyed-data-dir';
import {
  LedgerWorkload,
  connectLedgerClients,
  runSeed,
  seededRandom,
} from '../support/ledger-workload';
import { startService } from '../support/wire';

jest.setTimeout(600_000);

/**
 * Retention with keyed state: with ONCE_JOURNAL_RETAIN=1 the journal is
 * compacted up to the newest snapshot, which is also the only one whose
 * keyed records are on disk. A node killed under ledger load, or stopped
 * gracefully, boots from that snapshot (its records) and the journal after
 * it, with every acknowledged balance.
 */

const COMPACTED = /journal compacted: \d+ entries deleted .* it starts at op (\d+)/g;
const SEED = runSeed();

/** The first op the journal starts at after the last compaction `logs` report, or 1. */
function compactedTo(logs: string): number {
  const all = [...logs.matchAll(COMPACTED)];
  return all.length === 0 ? 1 : Number(all[all.length - 1][1]);
}

describe(`given the reference service retaining 1 snapshot of history, one every 40 ops (seed ${SEED})`, () => {
  let service: ServiceProcess;
  let clients: OnceClient[] = [];
  let load: LedgerWorkload;

  beforeAll(async () => {
    service = await startService({
      ONCE_JOURNAL_RETAIN: '1',
      ONCE_SNAPSHOT_EVERY_OPS: '40',
      ONCE_KEYED_CACHE_ENTRIES: '16',
    });
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close({ force: true })));
    await service?.cleanup();
  });

  it('when four clients run ledger load and the journal is compacted under it, then a SIGKILL mid-load restores the newest snapshot at the journal start, and every acknowledged command is in the balances', async () => {
    const random = seededRandom(SEED);
    clients = await connectLedgerClients(service, 4);
    load = await LedgerWorkload.start(clients, { commandsPerClient: 300, random, tag: 'retain' });

    // The journal's first op moves while the load runs.
    await eventually(() => compactedTo(service.logs) > 100, 'a compaction past op 100');
    const compactedBefore = compactedTo(service.logs);
    await load.settledMore(50);
    expect(load.running).toBe(true);
    await service.crash();

    const killed = await readKeyedDataDir(service.dataDir);
    expect(killed.firstOp).toBeGreaterThanOrEqual(compactedBefore);
    expectRecordsMatchSnapshot(killed);
    // Only the newest snapshot's records are on disk; the journal kept covers it.
    expect(killed.snapshotOp).toBeGreaterThanOrEqual(killed.firstOp - 1);

    const mark = service.logs.length;
    await service.restart();
    const boot = service.logs.slice(mark);
    expect(boot).toContain(
      `snapshot restored at op ${killed.snapshotOp} (the journal starts at op ${killed.firstOp}`,
    );
    expect(boot).not.toMatch(/does not restore|unreadable|no snapshot restored/);

    await load.done;
    expect(load.anomalies).toEqual([]);
    await load.expectBalances(clients[0]);
  });

  it('when the node is killed again once the load is over, and then stopped gracefully and started, then both boots restore the newest snapshot of a compacted journal and the balances hold', async () => {
    await service.crash();
    let dir = await readKeyedDataDir(service.dataDir);
    expectRecordsMatchSnapshot(dir);
    expect(dir.firstOp).toBeGreaterThan(1);
    let mark = service.logs.length;
    await service.restart();
    expect(service.logs.slice(mark)).toContain(`snapshot restored at op ${dir.snapshotOp}`);
    await Promise.allSettled(clients.map((client) => client.close({ force: true })));
    clients = await connectLedgerClients(service, 1);
    await load.expectBalances(clients[0]);
    await clients[0].close();
    clients = [];

    expect(await service.stop()).toBe(0);
    dir = await readKeyedDataDir(service.dataDir);
    expectRecordsMatchSnapshot(dir);
    expect(dir.snapshotOp).toBe(dir.lastOp);
    expect(dir.firstOp).toBeGreaterThan(1);
    expect(ledgerAccounts(dir)).toEqual(Object.fromEntries(load.expected));

    mark = service.logs.length;
    await service.restart();
    const boot = service.logs.slice(mark);
    expect(boot).toMatch(
      new RegExp(`snapshot restored at op ${dir.snapshotOp} \\(the journal starts at op \\d+`),
    );
    clients = await connectLedgerClients(service, 1);
    await load.expectBalances(clients[0]);
  });
});

/**
 * What retention cannot offer with keyed state: only the newest snapshot's
 * records are on disk, so an older snapshot never restores, and once the
 * journal is compacted past op 1 a damaged newest snapshot whose copy (kept
 * with the records, which restores it alone) is damaged too leaves nothing to
 * rebuild the state from. The node refuses to start and says why, rather
 * than serve a wrong state (before keyed state it booted from the older
 * snapshot).
 */
describe('given the reference service retaining 2 snapshots of history, killed after compaction, and its newest snapshot and that snapshot’s copy damaged', () => {
  let service: ServiceProcess;
  let clients: OnceClient[] = [];

  beforeAll(async () => {
    service = await startService({ ONCE_JOURNAL_RETAIN: '2', ONCE_SNAPSHOT_EVERY_OPS: '40' });
    clients = await connectLedgerClients(service, 2);
    const load = await LedgerWorkload.start(clients, {
      commandsPerClient: 150,
      random: seededRandom(SEED + 1),
      tag: 'retain2',
    });
    await load.done;
    expect(load.anomalies).toEqual([]);
    await eventually(() => compactedTo(service.logs) > 1, 'a compaction');
    await Promise.all(clients.map((client) => client.close({ force: true })));
    clients = [];
    await service.crash();
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close({ force: true })));
    await service?.cleanup();
  });

  it('when the node starts, then it refuses (exit 1), naming the newest snapshot unreadable and the older one behind the keyed records on disk', async () => {
    const before = await readKeyedDataDir(service.dataDir);
    expect(before.firstOp).toBeGreaterThan(1);
    const { snapshot } = await readAll(service.dataDir);
    expect(snapshot.length).toBeGreaterThanOrEqual(2);
    const [older, newest] = snapshot.slice(-2);
    expect(older.op).toBeGreaterThanOrEqual(before.firstOp - 1);
    await withLevel(service.dataDir, async ({ snapshot: level, keyed }) => {
      const flipped = Buffer.from(newest.value);
      flipped[Math.floor(flipped.length / 2)] ^= 0x01;
      await level.put(opKey(newest.op), flipped);
      await keyed.del(KEYED_SNAPSHOT_COPY_KEY);
    });

    const mark = service.logs.length;
    await expect(service.restart()).rejects.toBeInstanceOf(ServiceStartError);
    expect(await service.exited()).toBe(1);
    const logs = service.logs.slice(mark);
    expect(logs).toContain(
      `the journal starts at op ${before.firstOp} (earlier ops were compacted) and no snapshot that covers them restores`,
    );
    expect(logs).toMatch(new RegExp(`the snapshot at op ${newest.op} is unreadable`));
    expect(logs).toContain(
      `the snapshot at op ${older.op} has keyed state, and the keyed records on disk are those of op ${newest.op}`,
    );
  });
});
