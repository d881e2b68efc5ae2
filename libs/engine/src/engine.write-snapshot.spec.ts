import { randomClientId } from '@once/protocol';
import { type CommandHandler } from './command-handler';
import { KeyedState } from './keyed';
import { type ModuleState } from './module-state';
import { OnceNode } from './once-node';
import { registerDraft, commandDraft } from './__fixtures__/entry-drafts.fixture';
import { submit, tempDataDir } from './__fixtures__/test-node.fixture';

/** A keyed state: counters kept as records of the data directory. */
class Counters extends KeyedState {
  readonly values = this.map<number>('values');
}

function countersModule(): {
  counters: Counters;
  commands: CommandHandler[];
  states: Array<[string, ModuleState]>;
} {
  const counters = new Counters();
  return {
    counters,
    commands: [
      {
        pattern: 'count',
        apply(data) {
          const { key } = data as { key: string };
          const value = (counters.values.get(key) ?? 0) + 1;
          counters.values.set(key, value);
          return { value };
        },
      },
    ],
    states: [['counters', counters]],
  };
}

async function openNode(dir: string) {
  const module = countersModule();
  const node = await OnceNode.open({
    dataDir: dir,
    commands: module.commands,
    states: module.states,
    snapshotEveryOps: 0,
    // Snapshots only where this spec takes them.
    checkpointIntervalMs: 0,
    progressIntervalMs: 10_000,
  });
  await node.start();
  return { node, counters: module.counters };
}

/**
 * A snapshot written by a maintenance tool (`once snapshot`: a replay, then
 * one snapshot at the journal end) after a replay from op 1, which keeps the
 * keyed records in a new generation in memory: the snapshot must carry those
 * records to disk, or it can never be restored (its marker names records
 * that are not there), and a `once compact` after it leaves a directory that
 * cannot boot.
 */
describe('Engine.writeSnapshot', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDataDir('once-write-snapshot-'));
  });
  afterEach(() => cleanup());

  it('writes the keyed records with the snapshot: after a replay from op 1, the next boot restores it', async () => {
    const first = await openNode(dir);
    const client = randomClientId();
    const epoch = (await submit(first.node.engine, registerDraft(client, 1))).registered!.epoch;
    for (let request = 1; request <= 5; request++) {
      const key = `k${request % 2}`;
      await submit(first.node.engine, commandDraft(client, 1, epoch, request, 'count', { key }));
    }
    await first.node.stop({ snapshot: false });

    // Replayed from op 1 (no snapshot), then one snapshot at the end, as `once snapshot` does.
    const second = await openNode(dir);
    expect(second.node.engine.applier.restoredOp).toBe(0);
    const endOp = second.node.engine.commitOp;
    await second.node.engine.writeSnapshot();
    await second.node.stop({ snapshot: false });

    const third = await openNode(dir);
    try {
      expect(third.node.engine.applier.restoredOp).toBe(endOp);
      expect(third.counters.values.get('k0')).toBe(2);
      expect(third.counters.values.get('k1')).toBe(3);
    } finally {
      await third.node.stop({ snapshot: false });
    }
  });

  it('rejects when the snapshot cannot be written, and the records wait for the next one', async () => {
    const first = await openNode(dir);
    const client = randomClientId();
    const epoch = (await submit(first.node.engine, registerDraft(client, 1))).registered!.epoch;
    await submit(first.node.engine, commandDraft(client, 1, epoch, 1, 'count', { key: 'k' }));
    // A disk that refuses this one write.
    const journal = first.node.engine.journal;
    jest.spyOn(journal, 'saveSnapshot').mockRejectedValueOnce(new Error('disk full'));
    await expect(first.node.engine.writeSnapshot()).rejects.toThrow('disk full');
    const endOp = first.node.engine.commitOp;
    await first.node.engine.writeSnapshot();
    await first.node.stop({ snapshot: false });

    const second = await openNode(dir);
    try {
      expect(second.node.engine.applier.restoredOp).toBe(endOp);
      expect(second.counters.values.get('k')).toBe(1);
    } finally {
      await second.node.stop({ snapshot: false });
    }
  });
});
