import { OnceNode } from '@once/engine/internal';
import { clientIdFromBigInt } from '@once/protocol/internal';
import { sampleModules } from '../../engine/src/__fixtures__/sample-modules.fixture';
import {
  type TestNode,
  startTestNode,
  tempDataDir,
} from '../../engine/src/__fixtures__/test-node.fixture';
import { registerDraft } from '../../engine/src/__fixtures__/entry-drafts.fixture';
import { livenessOf, readinessOf } from './readiness';

describe('liveness and readiness of a node', () => {
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDataDir('once-readiness-'));
  });
  afterEach(() => cleanup());

  it('is live and not ready before the node is open', () => {
    expect(livenessOf(undefined).up).toBe(true);
    expect(readinessOf(undefined)).toEqual({ up: false, details: { phase: 'opening' } });
  });

  it('is not ready while the journal replays, with its progress, and ready after', async () => {
    const first = await startTestNode(dir);
    await first.node.stop({ snapshot: false });
    const modules = sampleModules();
    const node = await OnceNode.open({ dataDir: dir, ...modules, snapshotEveryOps: 0 });
    try {
      const source = { engine: node.engine, journal: node.journal };
      const done = node.start();
      // Boot enters the replay at once; the journal is read asynchronously.
      const replaying = readinessOf(source);
      expect(replaying.up).toBe(false);
      expect(replaying.details).toMatchObject({
        phase: 'replaying',
        replay: { appliedEntries: 0, totalEntries: node.journal.lastOp },
      });
      expect(livenessOf(source).up).toBe(true);
      await done;
      expect(readinessOf(source)).toEqual({
        up: true,
        details: { phase: 'ready', commitOp: node.engine.commitOp, journal: 'ok' },
      });
    } finally {
      await node.stop();
    }
  });

  it('is neither live nor ready once the journal failed', async () => {
    let failWrites = false;
    const test: TestNode = await startTestNode(dir, {
      journal: {
        beforeWrite: () => {
          if (failWrites) throw new Error('disk on fire');
        },
      },
    });
    try {
      const source = { engine: test.engine, journal: test.node.journal };
      failWrites = true;
      const failed = new Promise<Error>((resolve) =>
        test.engine.submit(registerDraft(clientIdFromBigInt(0xa11cen), 1), undefined, resolve),
      );
      await expect(failed).resolves.toThrow(/disk on fire/);
      expect(livenessOf(source)).toMatchObject({ up: false, details: { journal: 'failed' } });
      expect(readinessOf(source)).toMatchObject({ up: false, details: { journal: 'failed' } });
    } finally {
      await test.node.stop();
    }
  });

  it('in cluster mode, is ready only within the apply lag allowed', async () => {
    const test = await startTestNode(dir);
    try {
      const behind = (ops: number) => ({
        engine: test.engine,
        journal: test.node.journal,
        cluster: {
          view: { node: 'n1', role: 'follower' as const, leader: null },
          streamOp: test.engine.commitOp + ops,
        },
      });
      expect(readinessOf(behind(10), { applyLagOpsMax: 10 })).toMatchObject({
        up: true,
        details: { role: 'follower', applyLagOps: 10 },
      });
      expect(readinessOf(behind(11), { applyLagOpsMax: 10 })).toMatchObject({
        up: false,
        details: { applyLagOps: 11 },
      });
    } finally {
      await test.node.stop();
    }
  });
});
