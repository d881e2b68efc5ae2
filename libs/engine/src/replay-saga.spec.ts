import fc from 'fast-check';
import { draftsFor, history, replyKey } from './__fixtures__/random-history.fixture';
import { replayDataDir, startTestNode, tempDataDir } from './__fixtures__/test-node.fixture';

/**
 * The replay property: a random history applied live, then replayed from the
 * journal — from op 1, and from a snapshot taken at a random point — gives
 * byte-identical state (client table with every ring, module states) and
 * byte-identical replies.
 */

/**
 * Replays the journal into a fresh node without letting it settle (no BOOT
 * entry on top). Watching outcomes makes the engine encode every reply as it
 * applies; unwatched (as at a real boot) cached replies are encoded when
 * first read — both must rebuild the same bytes.
 */
async function replayOnly(
  dir: string,
  ignoreSnapshots: boolean,
  journal: { clock: () => bigint },
  watch: boolean,
  bootOp: number,
): Promise<{ state: Buffer; replies: string[]; snapshotOp: number }> {
  const replies: string[] = [];
  const { state, snapshotOp } = await replayDataDir(dir, {
    ignoreSnapshots,
    journal,
    onOutcome: watch ? (outcome) => replies.push(replyKey(outcome)) : undefined,
  });
  // Ops up to `bootOp` (the MANIFEST and BOOT entries) were journaled before anyone listened live.
  return {
    state,
    replies: replies.filter((key) => Number(key.split(':')[0]) > bootOp),
    snapshotOp,
  };
}

describe('replay saga', () => {
  it('rebuilds byte-identical state and replies from op 1 and from a snapshot at a random op', async () => {
    await fc.assert(
      fc.asyncProperty(history, fc.nat(), async (chunks, snapshotSeed) => {
        const { dir, cleanup } = await tempDataDir('once-replay-');
        const clock = { now: 1_800_000_000_000_000_000n };
        const journal = { clock: () => clock.now };
        try {
          const live = await startTestNode(dir, { settings: { clientsMax: 3, ring: 2 }, journal });
          const bootOp = live.engine.commitOp;
          const liveReplies: string[] = [];
          live.engine.onApplied((outcome) => liveReplies.push(replyKey(outcome)));
          const snapshotAfter = snapshotSeed % chunks.length;
          let snapshotOp = 0;
          for (const [index, chunk] of chunks.entries()) {
            const drafts = await draftsFor(live.engine, chunk, clock);
            await Promise.all(
              drafts.map(
                (draft) =>
                  new Promise<void>((resolve) => live.engine.submit(draft, () => resolve())),
              ),
            );
            if (index === snapshotAfter) {
              await live.engine.takeSnapshot();
              snapshotOp = live.engine.commitOp;
            }
          }
          await live.node.stop({ snapshot: false });
          // Once stopped: a graceful stop journals the REPLY_CHECK of the last replies, which replay applies too.
          const liveState = live.engine.captureSnapshot();

          for (const ignoreSnapshots of [true, false]) {
            const from = ignoreSnapshots ? 0 : snapshotOp;
            const watched = await replayOnly(dir, ignoreSnapshots, journal, true, bootOp);
            expect(watched.snapshotOp).toBe(from);
            expect(watched.state.equals(liveState)).toBe(true);
            const after = (key: string) => Number(key.split(':')[0]) > from;
            expect(watched.replies.filter(after)).toEqual(liveReplies.filter(after));
            const unwatched = await replayOnly(dir, ignoreSnapshots, journal, false, bootOp);
            expect(unwatched.state.equals(liveState)).toBe(true);
          }
        } finally {
          await cleanup();
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
