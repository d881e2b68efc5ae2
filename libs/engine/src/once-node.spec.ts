import { EntryKind, JournalFailedError } from '@once/journal';
import { EngineUnavailableError } from './engine-unavailable.error';
import { OnceNode, type OnceNodeOptions } from './once-node';
import { startTestNode, tempDataDir } from './__fixtures__/test-node.fixture';
import { sampleModules } from './__fixtures__/sample-modules.fixture';

/** Opens a node on a new directory whose journal fails the batch writes `fails` picks (counted from 1). */
async function nodeFailingWrite(
  dir: string,
  fails: (write: number) => boolean,
  options: Partial<OnceNodeOptions> = {},
): Promise<OnceNode> {
  const modules = sampleModules();
  let writes = 0;
  return OnceNode.open({
    dataDir: dir,
    commands: modules.commands,
    states: modules.states,
    snapshotEveryOps: 0,
    journal: {
      beforeWrite: () => {
        writes++;
        if (fails(writes)) throw new Error('disk on fire');
      },
    },
    ...options,
  });
}

describe('OnceNode boot on a failing journal', () => {
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDataDir('once-node-'));
  });

  afterEach(async () => {
    await cleanup();
  });

  // On a new directory the first entry boot journals is the MANIFEST (op 1), then the BOOT.
  it('rejects start, naming the cause, when the first system entry of boot (MANIFEST or BOOT) cannot be written', async () => {
    const node = await nodeFailingWrite(dir, (write) => write === 1);
    try {
      const started = node.start();
      await expect(started).rejects.toThrow(EngineUnavailableError);
      await expect(started).rejects.toThrow(
        /(MANIFEST|BOOT) entry could not be journaled: .*disk on fire/,
      );
      await expect(started).rejects.toHaveProperty('cause', expect.any(JournalFailedError));
      expect(node.engine.phase).toBe('failed');
    } finally {
      await node.stop();
    }
  });

  it('rejects start when a genesis command cannot be written', async () => {
    const genesis = [{ pattern: 'kv.put', data: { key: 'genesis', value: 'once' } }];
    // Fails the write that carries the genesis COMMAND, whatever system entries boot wrote before it.
    let commandEnqueued = false;
    const node = await nodeFailingWrite(dir, () => commandEnqueued, { genesis });
    const enqueue = node.journal.enqueue.bind(node.journal);
    jest.spyOn(node.journal, 'enqueue').mockImplementation((draft) => {
      if (draft.kind === EntryKind.Command) commandEnqueued = true;
      return enqueue(draft);
    });
    try {
      await expect(node.start()).rejects.toThrow(
        /system command "kv.put" could not be journaled: .*disk on fire/,
      );
      expect(node.engine.ready).toBe(false);
    } finally {
      await node.stop();
    }
  });
});

describe('OnceNode boot on a new data directory', () => {
  it('given the default limits, when it boots, then it journals the code in force (MANIFEST) and then the limits (BOOT)', async () => {
    const { dir, cleanup } = await tempDataDir();
    const { node } = await startTestNode(dir);
    try {
      const kinds: EntryKind[] = [];
      for await (const batch of node.journal.readBatches(1, 16)) {
        for (const entry of batch) kinds.push(entry.kind);
      }
      expect(kinds).toEqual([EntryKind.Manifest, EntryKind.Boot]);
      expect(node.journal.meta.settings).toMatchObject({ sinceOp: 2 });
    } finally {
      await node.stop();
      await cleanup();
    }
  });
});
