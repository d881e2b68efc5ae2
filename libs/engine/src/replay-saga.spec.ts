import fc from 'fast-check';
import { type EntryDraft } from '@once/journal';
import { type ClientId, clientIdFromBigInt } from '@once/protocol';
import { type ApplyOutcome } from './apply-outcome';
import {
  bootDraft,
  commandDraft,
  logoutDraft,
  registerDraft,
  releaseDraft,
} from './__fixtures__/entry-drafts.fixture';
import { startTestNode, tempDataDir } from './__fixtures__/test-node.fixture';
import { lastValueFrom } from 'rxjs';
import { type Engine } from './engine';
import { OnceNode } from './once-node';
import { replaySaga } from './replay-saga';
import { sampleModules } from './__fixtures__/sample-modules.fixture';

/**
 * The replay property: a random history applied live, then replayed from the
 * journal — from op 1, and from a snapshot taken at a random point — gives
 * byte-identical state (client table with every ring, module states) and
 * byte-identical replies.
 */

const CLIENTS: ClientId[] = [1n, 2n, 3n, 4n, 5n].map((n) => clientIdFromBigInt(0x1000n + n));
const USERS = [1, 2];
const TTL_MS = 1_000;

type Action =
  | { t: 'register'; c: number; u: number }
  | {
      t: 'command';
      c: number;
      pattern: string;
      key: number;
      value: string;
      skew: 'none' | 'stale' | 'ahead' | 'gap';
    }
  | { t: 'logout'; c: number; skew: 'none' | 'stale' }
  | { t: 'release'; c: number }
  | { t: 'limits'; clientsMax: number; ring: number; ttl: boolean }
  | { t: 'tick'; ms: number };

const client = fc.integer({ min: 0, max: CLIENTS.length - 1 });
const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('register' as const),
      c: client,
      u: fc.integer({ min: 0, max: 1 }),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant('command' as const),
      c: client,
      pattern: fc.constantFrom(
        'kv.put',
        'kv.sealed',
        'kv.refuse',
        'member.join',
        'ctx.echo',
        'no.such',
      ),
      key: fc.integer({ min: 0, max: 3 }),
      value: fc.string({ maxLength: 6 }),
      skew: fc.constantFrom('none', 'none', 'none', 'stale', 'ahead', 'gap'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('logout' as const),
      c: client,
      skew: fc.constantFrom('none', 'stale'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('release' as const), c: client }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('limits' as const),
      clientsMax: fc.integer({ min: 1, max: 4 }),
      ring: fc.integer({ min: 1, max: 3 }),
      ttl: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('tick' as const),
      ms: fc.integer({ min: 1, max: 2 * TTL_MS }),
    }),
  },
);

/** A history: chunks of actions whose drafts are submitted together (one group commit, or a few). */
const history = fc.array(fc.array(action, { minLength: 1, maxLength: 4 }), {
  minLength: 1,
  maxLength: 25,
});

/** Drafts for a chunk, computed from the table as it stands (like concurrent requests would be). */
async function draftsFor(
  engine: Engine,
  actions: Action[],
  clock: { now: bigint },
): Promise<EntryDraft[]> {
  const drafts: EntryDraft[] = [];
  for (const act of actions) {
    if (act.t === 'tick') {
      clock.now += BigInt(act.ms) * 1_000_000n;
      continue;
    }
    if (act.t === 'limits') {
      drafts.push(
        bootDraft({
          clientsMax: act.clientsMax,
          ring: act.ring,
          sessionTtlMs: act.ttl ? TTL_MS : 0,
        }),
      );
      continue;
    }
    const id = CLIENTS[act.c];
    if (act.t === 'register') {
      drafts.push(registerDraft(id, USERS[act.u]));
      continue;
    }
    if (act.t === 'release') {
      drafts.push(releaseDraft(id));
      continue;
    }
    const entry = engine.table.get(id);
    const userId = entry?.userId ?? 1;
    let session = entry?.epoch ?? 3;
    let request = (entry?.watermark ?? 0) + 1;
    if (act.skew === 'stale') session = Math.max(1, session - 1);
    if (act.t === 'command') {
      if (act.skew === 'ahead') session += 5;
      if (act.skew === 'gap') request += 2;
      const data = { key: `k${act.key}`, value: act.value };
      if (act.pattern === 'kv.sealed') {
        const body = await engine.prepareCommand(act.pattern, data, {
          pattern: act.pattern,
          userId,
          client: id,
        });
        drafts.push({ ...commandDraft(id, userId, session, request, act.pattern, data), body });
      } else {
        drafts.push(commandDraft(id, userId, session, request, act.pattern, data));
      }
    } else {
      drafts.push(logoutDraft(id, userId, session, request));
    }
  }
  return drafts;
}

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
): Promise<{ state: Buffer; replies: string[]; snapshotOp: number }> {
  const modules = sampleModules();
  const node = await OnceNode.open({
    dataDir: dir,
    commands: modules.commands,
    states: modules.states,
    journal,
  });
  try {
    const replies: string[] = [];
    const progress = await lastValueFrom(
      replaySaga(node.journal, node.engine, {
        ignoreSnapshots,
        onOutcome: watch ? (outcome) => replies.push(replyKey(outcome)) : undefined,
      }),
    );
    // Op 1 is the BOOT entry the live node journaled before anyone listened.
    return {
      state: node.engine.captureSnapshot(),
      replies: replies.filter((key) => !key.startsWith('1:')),
      snapshotOp: progress.snapshotOp,
    };
  } finally {
    await node.stop({ snapshot: false });
  }
}

function replyKey(outcome: ApplyOutcome): string {
  return `${outcome.entry.op}:${outcome.reply?.toString('hex') ?? '-'}:${outcome.result?.toString('hex') ?? '-'}`;
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
          const liveState = live.engine.captureSnapshot();
          await live.node.stop({ snapshot: false });

          for (const ignoreSnapshots of [true, false]) {
            const from = ignoreSnapshots ? 0 : snapshotOp;
            const watched = await replayOnly(dir, ignoreSnapshots, journal, true);
            expect(watched.snapshotOp).toBe(from);
            expect(watched.state.equals(liveState)).toBe(true);
            const after = (key: string) => Number(key.split(':')[0]) > from;
            expect(watched.replies.filter(after)).toEqual(liveReplies.filter(after));
            const unwatched = await replayOnly(dir, ignoreSnapshots, journal, false);
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
