import fc from 'fast-check';
import { randomClientId } from '@once/protocol';
import { OnceNode } from './once-node';
import { registerDraft } from './__fixtures__/entry-drafts.fixture';
import { draftsFor, history, replyKey } from './__fixtures__/random-history.fixture';
import {
  replayDataDir,
  submit,
  startTestNode,
  tempDataDir,
} from './__fixtures__/test-node.fixture';

/**
 * Checkpoints: with keyed state on disk, the node writes what changed with
 * the op it covers soon after each group commit, without waiting for a
 * scheduled snapshot, so a restart replays only what came after it.
 */
describe('Engine checkpoints', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDataDir('once-checkpoints-'));
  });
  afterEach(() => cleanup());

  /** Polls until `condition` holds: the checkpoint is written in the background. */
  async function until(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`still waiting for: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('given keyed state and checkpoints on, when commands apply, then their records reach the disk with their op, and a restart after it replays nothing before that op', async () => {
    const live = await startTestNode(dir, { checkpointIntervalMs: 1 });
    for (let i = 0; i < 20; i++) {
      await live.engine.submitSystemCommand('keyed.put', { key: `k${i % 7}`, value: `v${i}` });
    }
    const appliedOp = live.engine.commitOp;
    await until(
      () => live.node.journal.keyed?.head()?.op === appliedOp,
      `a checkpoint at op ${appliedOp}`,
    );
    const items = Object.fromEntries(
      [0, 1, 2, 3, 4, 5, 6].map((k) => [`k${k}`, live.modules.keyed.items.get(`k${k}`)]),
    );
    // No snapshot at the stop: what is on disk is what the checkpoints wrote.
    await live.node.stop({ snapshot: false });

    const again = await startTestNode(dir);
    try {
      expect(again.engine.applier.restoredOp).toBe(appliedOp);
      for (const [key, value] of Object.entries(items)) {
        expect(again.modules.keyed.items.get(key)).toEqual(value);
      }
    } finally {
      await again.node.stop({ snapshot: false });
    }
  });

  it('given a node whose newest snapshot covers its journal, when it stops, then it writes none and says the newest one is current', async () => {
    const first = await startTestNode(dir, { checkpointIntervalMs: 1 });
    await first.engine.submitSystemCommand('keyed.put', { key: 'k', value: 'v' });
    await first.node.stop();
    const lines: string[] = [];
    const logger = {
      log: (message: unknown) => lines.push(String(message)),
      warn: (message: string) => lines.push(message),
      error: (message: string) => lines.push(message),
    };
    const again = await startTestNode(dir, { checkpointIntervalMs: 1, logger });
    const restoredOp = again.engine.applier.restoredOp;
    expect(again.engine.commitOp).toBe(restoredOp);
    await again.node.stop();
    expect(lines).toContain(`snapshot at op ${restoredOp} is current: nothing to write`);
    expect(lines.join('\n')).not.toMatch(/snapshot at op \d+ written/);
  });

  it('given checkpoints off, when commands apply, then nothing is written before a snapshot is taken', async () => {
    const live = await startTestNode(dir, { checkpointIntervalMs: 0 });
    for (let i = 0; i < 5; i++) {
      await live.engine.submitSystemCommand('keyed.put', { key: `k${i}`, value: `v${i}` });
    }
    await live.node.stop({ snapshot: false });
    expect(live.node.journal.keyed?.head()).toBeUndefined();

    const again = await startTestNode(dir);
    try {
      expect(again.engine.applier.restoredOp).toBe(0);
      expect(again.modules.keyed.items.get('k4')).toEqual({ value: 'v4', writes: 1 });
    } finally {
      await again.node.stop({ snapshot: false });
    }
  });

  it('given an application without keyed state, when requests apply, then it writes no checkpoint: its snapshots stay as they were', async () => {
    const node = await OnceNode.open({
      dataDir: dir,
      commands: [],
      states: [],
      snapshotEveryOps: 0,
      checkpointIntervalMs: 1,
      progressIntervalMs: 10_000,
    });
    await node.start();
    await submit(node.engine, registerDraft(randomClientId(), 1));
    await submit(node.engine, registerDraft(randomClientId(), 1));
    await node.stop({ snapshot: false });

    const again = await OnceNode.open({
      dataDir: dir,
      commands: [],
      states: [],
      progressIntervalMs: 10_000,
    });
    await again.start();
    try {
      expect(again.engine.applier.restoredOp).toBe(0);
      expect(again.engine.table.size).toBe(2);
    } finally {
      await again.stop({ snapshot: false });
    }
  });

  /**
   * The replay property with checkpoints: a random history (sessions, keyed
   * and whole-object states, refusals, crashes, expiries) applied live with a
   * checkpoint after (nearly) every group commit, the node stopped without a
   * snapshot at a random point; then the directory boots from its newest
   * checkpoint, and replays from op 1. Both reach the live state byte for
   * byte (the sessions' records and the keyed digest included), and give
   * every reply the live run gave after their starting op.
   */
  it('property: a random history with checkpoints boots from the newest one, and from op 1, to the live state and replies', async () => {
    let bootsFromCheckpoint = 0;
    await fc.assert(
      fc.asyncProperty(history, fc.nat(), async (chunks, stopSeed) => {
        const { dir, cleanup } = await tempDataDir('once-checkpoint-replay-');
        const clock = { now: 1_800_000_000_000_000_000n };
        const journal = { clock: () => clock.now };
        try {
          const live = await startTestNode(dir, {
            settings: { clientsMax: 3, ring: 2 },
            journal,
            checkpointIntervalMs: 1,
          });
          // Ops up to here (MANIFEST, BOOT) were applied before anyone listened live.
          const bootOp = live.engine.commitOp;
          const liveReplies: string[] = [];
          live.engine.onApplied((outcome) => liveReplies.push(replyKey(outcome)));
          const stopAfter = stopSeed % chunks.length;
          for (const chunk of chunks.slice(0, stopAfter + 1)) {
            const drafts = await draftsFor(live.engine, chunk, clock);
            await Promise.all(
              drafts.map(
                (draft) =>
                  new Promise<void>((resolve) => live.engine.submit(draft, () => resolve())),
              ),
            );
          }
          await live.node.stop({ snapshot: false });
          const liveState = live.engine.captureSnapshot();

          for (const ignoreSnapshots of [false, true]) {
            const replies: string[] = [];
            const { state, snapshotOp } = await replayDataDir(dir, {
              ignoreSnapshots,
              journal,
              onOutcome: (outcome) => replies.push(replyKey(outcome)),
            });
            if (ignoreSnapshots) expect(snapshotOp).toBe(0);
            else if (snapshotOp > bootOp) bootsFromCheckpoint++;
            expect(state.equals(liveState)).toBe(true);
            const from = Math.max(snapshotOp, bootOp);
            const after = (key: string) => Number(key.split(':')[0]) > from;
            expect(replies.filter(after)).toEqual(liveReplies.filter(after));
          }
        } finally {
          await cleanup();
        }
      }),
      { numRuns: 25 },
    );
    // The boots restored checkpoints written during the history, not only the boot's.
    expect(bootsFromCheckpoint).toBeGreaterThan(0);
  }, 180_000);
});
