import { SUBLEVEL_NAMES } from '@once/journal/internal';
import { ClassicLevel } from 'classic-level';
import { join } from 'node:path';
import { lastValueFrom } from 'rxjs';
import { type EngineLogger } from './engine-logger';
import { OnceNode, type OnceNodeOptions } from './once-node';
import { SnapshotsUnusableError } from './snapshots-unusable.error';
import { startTestNode, tempDataDir, verifyDataDir } from './__fixtures__/test-node.fixture';
import { sampleModules } from './__fixtures__/sample-modules.fixture';

/**
 * Boot and verification on a journal that retention compacted: both start
 * from a snapshot that covers the deleted ops, say so, and rebuild the same
 * state as the node that wrote it, including after a compaction cut short.
 */

/** A logger keeping each line's text. */
function recordingLogger(): EngineLogger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (line: unknown) => void lines.push(String(line));
  return { lines, log: keep, warn: keep, error: keep };
}

/** Writes `count` kv.put commands through the live node. */
async function writeHistory(node: OnceNode, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await node.engine.submitSystemCommand('kv.put', { key: `k${i % 7}`, value: `v${i}` });
  }
}

const verify = verifyDataDir;

describe('boot and verify with journal retention', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDataDir('once-retention-boot-'));
  });
  afterEach(async () => cleanup());

  const retaining: Partial<OnceNodeOptions> = { journalRetain: 2, snapshotEveryOps: 20 };

  it('given a node that compacted its journal, when it restarts, then it restores a covering snapshot, says so, and reaches the same state; verify replays from that snapshot and matches the newest', async () => {
    const first = await startTestNode(dir, retaining);
    await writeHistory(first.node, 100);
    await first.node.journal.compact();
    expect(first.node.journal.firstOp).toBeGreaterThan(1);
    await first.node.stop({ snapshot: false });
    const state = first.engine.captureSnapshot();
    const lastOp = first.engine.commitOp;

    const logger = recordingLogger();
    const second = await startTestNode(dir, { ...retaining, logger });
    try {
      const firstOp = second.node.journal.firstOp;
      expect(
        logger.lines.some((line) =>
          line.startsWith(
            `snapshot restored at op ${second.engine.applier.restoredOp} (the journal starts at op ${firstOp}`,
          ),
        ),
      ).toBe(true);
      // The restart journaled nothing (same limits, no holders): the state is the writer's.
      expect(second.engine.commitOp).toBe(lastOp);
      expect(second.engine.captureSnapshot().equals(state)).toBe(true);
    } finally {
      await second.node.stop({ snapshot: false });
    }

    const verified = await verify(dir);
    expect(verified.firstOp).toBeGreaterThan(1);
    expect(verified.startSnapshotOp).toBeGreaterThanOrEqual(verified.firstOp - 1);
    expect(verified.fromOp).toBe(verified.startSnapshotOp! + 1);
    expect(verified.entries).toBe(lastOp - verified.startSnapshotOp!);
    expect(verified.snapshotOp).toBeGreaterThan(verified.startSnapshotOp!);
    expect(verified.snapshotMatches).toBe(true);
    expect(verified.state.equals(state)).toBe(true);
  });

  it('given a compaction cut short between two batches, when the node restarts, then it boots to the same state and verifies', async () => {
    let batches = 0;
    const first = await startTestNode(dir, {
      ...retaining,
      journal: {
        compactBatchKeys: 4,
        beforeCompactBatch: () => {
          if (++batches === 6) throw new Error('cut short');
        },
      },
    });
    await writeHistory(first.node, 80);
    await first.node.journal.compact().catch(() => undefined);
    await first.node.stop({ snapshot: false });
    const state = first.engine.captureSnapshot();

    const second = await startTestNode(dir, retaining);
    try {
      expect(second.engine.captureSnapshot().equals(state)).toBe(true);
    } finally {
      await second.node.stop({ snapshot: false });
    }
    const verified = await verify(dir);
    expect(verified.snapshotMatches).toBe(true);
    expect(verified.state.equals(state)).toBe(true);
  });

  it('given a whole journal, when verified, then it replays from op 1 as before', async () => {
    const first = await startTestNode(dir, { snapshotEveryOps: 20 });
    await writeHistory(first.node, 50);
    await first.node.stop();
    const verified = await verify(dir);
    expect(verified).toMatchObject({
      fromOp: 1,
      startSnapshotOp: undefined,
      snapshotMatches: true,
    });
    expect(verified.entries).toBe(first.engine.commitOp);
  });

  it('given ops compacted away and no snapshot left to stand for them, when booting, then it fails naming the first op gone', async () => {
    const first = await startTestNode(dir, retaining);
    await writeHistory(first.node, 60);
    await first.node.journal.compact();
    await first.node.stop({ snapshot: false });
    // Read once stopped: the REPLY_CHECK a graceful stop journals may cross a snapshot
    // interval, and that snapshot's compaction move the first op again.
    const firstOp = first.node.journal.firstOp;
    expect(firstOp).toBeGreaterThan(1);
    await dropSnapshots(dir);

    const modules = sampleModules();
    const node = await OnceNode.open({
      dataDir: dir,
      commands: modules.commands,
      states: modules.states,
    });
    try {
      const boot = lastValueFrom(node.boot());
      await expect(boot).rejects.toBeInstanceOf(SnapshotsUnusableError);
      await expect(boot).rejects.toMatchObject({
        code: 'SNAPSHOTS_UNUSABLE',
        journalFirstOp: firstOp,
        message: expect.stringContaining(`the journal starts at op ${firstOp}`),
      });
    } finally {
      await node.stop({ snapshot: false });
    }
  });
});

/** Deletes every snapshot of a closed data directory (raw LevelDB), as a lost disk sector might. */
async function dropSnapshots(dir: string): Promise<void> {
  const db = new ClassicLevel<Buffer, Buffer>(join(dir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await db.open();
  try {
    await db
      .sublevel<Buffer, Buffer>(SUBLEVEL_NAMES.snapshot, {
        keyEncoding: 'buffer',
        valueEncoding: 'buffer',
      })
      .clear();
  } finally {
    await db.close();
  }
}
