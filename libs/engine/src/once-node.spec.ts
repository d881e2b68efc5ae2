import { JournalFailedError } from '@once/journal';
import { EngineUnavailableError } from './engine-unavailable.error';
import { OnceNode, type OnceNodeOptions } from './once-node';
import { tempDataDir } from './__fixtures__/test-node.fixture';
import { sampleModules } from './__fixtures__/sample-modules.fixture';

/** Opens a node on a new directory whose journal fails its `failingWrite`-th batch write (1-based). */
async function nodeFailingWrite(
  dir: string,
  failingWrite: number,
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
        if (writes === failingWrite) throw new Error('disk on fire');
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

  it('rejects start, naming the cause, when the BOOT entry cannot be written', async () => {
    const node = await nodeFailingWrite(dir, 1);
    try {
      const started = node.start();
      await expect(started).rejects.toThrow(EngineUnavailableError);
      await expect(started).rejects.toThrow(/BOOT entry could not be journaled: .*disk on fire/);
      await expect(started).rejects.toHaveProperty('cause', expect.any(JournalFailedError));
      expect(node.engine.phase).toBe('failed');
    } finally {
      await node.stop();
    }
  });

  it('rejects start when a genesis command cannot be written', async () => {
    const genesis = [{ pattern: 'kv.put', data: { key: 'genesis', value: 'once' } }];
    const node = await nodeFailingWrite(dir, 2, { genesis });
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
