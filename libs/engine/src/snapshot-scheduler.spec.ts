import { type Journal, type KeyedCheckpoint } from '@once/journal/internal';
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

describe('SnapshotScheduler', () => {
  it('takes a snapshot every `everyOps` applied ops, counting from the restored one', async () => {
    const applier = new Applier({
      commands: new CommandRegistry(),
      states: new StateRegistry(),
      nodeSecret: Buffer.alloc(32, 1),
    });
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
    const applier = new Applier({
      commands: new CommandRegistry(),
      states: new StateRegistry(),
      nodeSecret: Buffer.alloc(32, 1),
    });
    const { journal, saved } = snapshotJournal();
    const scheduler = new SnapshotScheduler(journal, applier, 0, SILENT_LOGGER);
    const first = scheduler.take();
    expect(scheduler.take()).toBe(first);
    await first;
    expect(saved).toHaveLength(1);
  });

  it('hands the keyed changes to the snapshot write, and keeps them for the next one when it fails', async () => {
    class Records extends KeyedState {
      readonly m = this.map<number>('m');
    }
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
});
