import {
  type Journal,
  type KeyedCheckpoint,
  type SaveSnapshotOptions,
} from '@once/journal/internal';
import { clientIdFromBigInt } from '@once/protocol/internal';
import { Applier } from './applier';
import { CommandRegistry } from './command-registry';
import { SILENT_LOGGER } from './engine-logger';
import { KeyedState, KeyedStore } from './keyed';
import { SnapshotScheduler } from './snapshot-scheduler';
import { StateRegistry } from './state-registry';
import { registerDraft } from './__fixtures__/entry-drafts.fixture';

/** The one member of the journal port a scheduler uses, recording what it is asked to store. */
function snapshotJournal(): { journal: Journal; saved: Array<[number, Buffer]> } {
  const saved: Array<[number, Buffer]> = [];
  const journal = {
    saveSnapshot: (op: number, payload: Buffer) => {
      saved.push([op, payload]);
      return Promise.resolve();
    },
  } as Partial<Journal> as Journal;
  return { journal, saved };
}

function applyRegisters(applier: Applier, count: number): void {
  for (let i = 0; i < count; i++) {
    const op = applier.commitOp + 1;
    const draft = registerDraft(clientIdFromBigInt(BigInt(op)), 1);
    applier.apply({ ...draft, op, timestamp: BigInt(op) });
  }
}

/** An applier with no module state: the client table's entries only. */
function plainApplier(): Applier {
  return new Applier({
    commands: new CommandRegistry(),
    states: new StateRegistry(),
    nodeSecret: Buffer.alloc(32, 1),
  });
}

class Records extends KeyedState {
  readonly m = this.map<number>('m');
}

/** An applier whose one state is keyed, over a store that has a data directory (empty). */
function keyedApplier(): { records: Records; keyed: KeyedStore; applier: Applier } {
  const records = new Records();
  const keyed = new KeyedStore({
    head: () => undefined,
    get: () => undefined,
    records: async function* () {},
  });
  const applier = new Applier({
    commands: new CommandRegistry(),
    states: new StateRegistry([['s', records]]),
    nodeSecret: Buffer.alloc(32, 1),
    keyed,
  });
  return { records, keyed, applier };
}

describe('SnapshotScheduler', () => {
  it('takes a snapshot every `everyOps` applied ops, counting from the restored one', async () => {
    const applier = plainApplier();
    applyRegisters(applier, 3);
    const restored = applier.captureSnapshot();
    applier.resetToGenesis();
    applier.restoreSnapshot(restored);
    const { journal, saved } = snapshotJournal();
    const scheduler = new SnapshotScheduler(journal, applier, 4, SILENT_LOGGER);
    expect(scheduler.lastSnapshotOp).toBe(3);
    expect(scheduler.behind).toBe(false);

    applyRegisters(applier, 3);
    scheduler.afterApply();
    expect(saved).toEqual([]);
    applyRegisters(applier, 1);
    scheduler.afterApply();
    await scheduler.settled();
    expect(saved.map(([op]) => op)).toEqual([7]);
    expect(saved[0][1].equals(applier.captureSnapshot())).toBe(true);
    expect(scheduler.lastSnapshotOp).toBe(7);
    expect(scheduler.behind).toBe(false);
  });

  it('joins a write in progress instead of starting a second one', async () => {
    const applier = plainApplier();
    const { journal, saved } = snapshotJournal();
    const scheduler = new SnapshotScheduler(journal, applier, 0, SILENT_LOGGER);
    const first = scheduler.take();
    expect(scheduler.take()).toBe(first);
    await first;
    expect(saved).toHaveLength(1);
  });

  it('hands the keyed changes to the snapshot write, and keeps them for the next one when it fails', async () => {
    const { records, keyed, applier } = keyedApplier();
    records.m.set('a', 1);
    const written: string[][] = [];
    let fail = true;
    const journal = {
      saveSnapshot: (_op: number, _payload: Buffer, checkpoint?: KeyedCheckpoint) => {
        const changes: string[] = [];
        for (let next = checkpoint!.changes.next(); !next.done; next = checkpoint!.changes.next()) {
          changes.push(`${next.value[0].toString()}=${next.value[1]?.toString() ?? '-'}`);
        }
        written.push(changes);
        return fail ? Promise.reject(new Error('disk full')) : Promise.resolve();
      },
    } as Partial<Journal> as Journal;
    const scheduler = new SnapshotScheduler(journal, applier, 0, SILENT_LOGGER);
    await scheduler.take();
    records.m.set('b', 2);
    expect(keyed.stagedCount).toBe(2);
    fail = false;
    await scheduler.take();
    expect(written).toEqual([['s/m\u0000a=1'], ['s/m\u0000a=1', 's/m\u0000b=2']]);
    expect(keyed.stagedCount).toBe(0);
    expect(keyed.get('s/m', 'a')).toBe(1);
  });

  it('at a stop, writes a snapshot when the state moved past the newest, and otherwise says (for a node that served) that the newest is current', async () => {
    const applier = plainApplier();
    const { journal, saved } = snapshotJournal();
    const lines: string[] = [];
    const logger = { ...SILENT_LOGGER, log: (message: unknown) => lines.push(String(message)) };
    const scheduler = new SnapshotScheduler(journal, applier, 0, logger);
    applyRegisters(applier, 2);

    await scheduler.takeAtStop(true);
    expect(saved.map(([op]) => op)).toEqual([2]);
    expect(lines).toEqual([
      expect.stringMatching(/^snapshot at op 2 written \(\d+ bytes, \d+ ms\)$/),
    ]);

    await scheduler.takeAtStop(true);
    expect(saved).toHaveLength(1);
    expect(lines[1]).toBe('snapshot at op 2 is current: nothing to write');

    await scheduler.takeAtStop(false); // a verification or maintenance replay says nothing
    expect(saved).toHaveLength(1);
    expect(lines).toHaveLength(2);
  });

  describe('checkpoints (keyed state on disk)', () => {
    /** An applier with a keyed state whose records persist, and a journal recording each save. */
    function keyedSetup(fail = false) {
      const { applier } = keyedApplier();
      const saves: Array<{ op: number; compact?: boolean; sync?: boolean }> = [];
      const journal = {
        saveSnapshot: (
          op: number,
          _payload: Buffer,
          _checkpoint?: KeyedCheckpoint,
          options?: SaveSnapshotOptions,
        ) => {
          saves.push({ op, compact: options?.compact, sync: options?.sync });
          return fail ? Promise.reject(new Error('disk full')) : Promise.resolve();
        },
      } as Partial<Journal> as Journal;
      return { applier, journal, saves };
    }

    it('writes one after a group of applies, without compaction or a sync of its own, and the next only once the interval has passed', async () => {
      const { applier, journal, saves } = keyedSetup();
      const scheduler = new SnapshotScheduler(journal, applier, 0, SILENT_LOGGER, 3_600_000);
      try {
        applyRegisters(applier, 2);
        scheduler.afterApply();
        await scheduler.settled();
        expect(saves).toEqual([{ op: 2, compact: false, sync: false }]);
        applyRegisters(applier, 3);
        scheduler.afterApply();
        await scheduler.settled();
        expect(saves).toHaveLength(1);
        // A scheduled snapshot is not held back, is synced, and runs the retention.
        await scheduler.take();
        expect(saves).toEqual([
          { op: 2, compact: false, sync: false },
          { op: 5, compact: true, sync: true },
        ]);
      } finally {
        scheduler.close();
      }
    });

    it('still takes the scheduled snapshots every `everyOps` ops, with compaction, between checkpoints', async () => {
      const { applier, journal, saves } = keyedSetup();
      const scheduler = new SnapshotScheduler(journal, applier, 4, SILENT_LOGGER, 1);
      try {
        for (let i = 0; i < 6; i++) {
          applyRegisters(applier, 1);
          scheduler.afterApply();
          await scheduler.settled();
        }
        expect(saves.filter(({ compact }) => compact === true).map(({ op }) => op)).toEqual([4]);
        expect(saves.some(({ compact }) => compact === false)).toBe(true);
      } finally {
        scheduler.close();
      }
    });

    it('writes the next as soon as the previous one is written when the interval is short', async () => {
      const { applier, journal, saves } = keyedSetup();
      const scheduler = new SnapshotScheduler(journal, applier, 0, SILENT_LOGGER, 1);
      try {
        applyRegisters(applier, 1);
        scheduler.afterApply();
        // Applied while the first is written: the write's end takes the next.
        applyRegisters(applier, 1);
        scheduler.afterApply();
        await scheduler.settled();
        const deadline = Date.now() + 30_000;
        while (saves.length < 2 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        expect(saves.map(({ op }) => op)).toEqual([1, 2]);
      } finally {
        scheduler.close();
      }
    });

    it('writes none once closed, and none while nothing changed', async () => {
      const { applier, journal, saves } = keyedSetup();
      const scheduler = new SnapshotScheduler(journal, applier, 0, SILENT_LOGGER, 1);
      scheduler.close();
      applyRegisters(applier, 2);
      scheduler.afterApply();
      await scheduler.settled();
      expect(saves).toEqual([]);

      const other = keyedSetup();
      const idle = new SnapshotScheduler(other.journal, other.applier, 0, SILENT_LOGGER, 1);
      idle.afterApply();
      await idle.settled();
      expect(other.saves).toEqual([]);
      idle.close();
    });

    it('waits before trying again after a write failed', async () => {
      const { applier, journal, saves } = keyedSetup(true);
      const scheduler = new SnapshotScheduler(journal, applier, 0, SILENT_LOGGER, 1);
      try {
        applyRegisters(applier, 1);
        scheduler.afterApply();
        await scheduler.settled();
        applyRegisters(applier, 1);
        scheduler.afterApply();
        await scheduler.settled();
        expect(saves).toHaveLength(1);
      } finally {
        scheduler.close();
      }
    });
  });
});
