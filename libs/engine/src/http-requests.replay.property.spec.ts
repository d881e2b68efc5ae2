import fc from 'fast-check';
import { type ApplyOutcome } from './apply-outcome';
import { type HttpRequestDraft, type HttpResponseRecord } from './http/http-request';
import { httpRequestEntryDraft } from './http/http-request-body';
import { bootDraft } from './__fixtures__/entry-drafts.fixture';
import { replayDataDir, startTestNode, tempDataDir } from './__fixtures__/test-node.fixture';

/**
 * The replay property of HTTP requests on a real journal: random chunks of
 * requests submitted together through `Engine.submitHttp` (so some meet
 * their own key in flight, some wait for it) or journaled past admission (a
 * race another node would make), BOOT entries changing the key bound and
 * retention, and journal time jumping; then the data directory is replayed
 * from op 1 and from a snapshot taken at a random point. The state is
 * byte-identical, every entry's response the same, and every response a
 * submitter got is the one its entry recorded.
 */

type Act =
  | {
      readonly t: 'http';
      readonly key: number;
      readonly variant: number;
      readonly pattern: string;
      readonly via: 'admit' | 'wait' | 'raw';
    }
  | { readonly t: 'limits'; readonly keysMax: number; readonly retentionMs: number }
  | { readonly t: 'tick'; readonly ms: number };

const act: fc.Arbitrary<Act> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant('http' as const),
      key: fc.integer({ min: 0, max: 4 }),
      variant: fc.integer({ min: 0, max: 1 }),
      pattern: fc.constantFrom('kv.put', 'kv.put', 'kv.refuse', 'kv.crash', 'ctx.echo'),
      via: fc.constantFrom('admit' as const, 'admit' as const, 'wait' as const, 'raw' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('limits' as const),
      keysMax: fc.integer({ min: 1, max: 3 }),
      retentionMs: fc.integer({ min: 500, max: 3000 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('tick' as const),
      ms: fc.integer({ min: 1, max: 4000 }),
    }),
  },
);

const chunks = fc.array(fc.array(act, { minLength: 1, maxLength: 4 }), {
  minLength: 1,
  maxLength: 15,
});

const MS = 1_000_000n;

function request(act: Extract<Act, { t: 'http' }>): HttpRequestDraft {
  return {
    scope: 'user 1|POST /kv',
    key: `key-${act.key}`,
    fingerprint: Buffer.alloc(16, act.variant + 1),
    userId: 1,
    pattern: act.pattern,
    data: { key: `k${act.key % 2}`, value: `v${act.variant}` },
    status: 201,
    refusalStatus: 422,
  };
}

function responseText(response: HttpResponseRecord): string {
  return `${response.op}:${response.status}:${response.body.toString('hex')}`;
}

/** An outcome as comparable text: its op, and what an HTTP request got (or `-`). */
function outcomeKey(outcome: ApplyOutcome): string {
  const http = outcome.http;
  return `${outcome.entry.op}:${http ? `${http.kind}:${responseText(http.response)}` : '-'}`;
}

/** Replays `dir` into a fresh node (nothing settled on top): its state and every outcome after `afterOp`. */
async function replayOnly(
  dir: string,
  ignoreSnapshots: boolean,
  journal: { clock: () => bigint },
  afterOp: number,
  keyedCacheEntries: number | undefined,
): Promise<{ state: Buffer; outcomes: string[]; snapshotOp: number }> {
  const outcomes: string[] = [];
  const { state, snapshotOp } = await replayDataDir(dir, {
    ignoreSnapshots,
    journal,
    keyedCacheEntries,
    onOutcome: (outcome) => {
      if (outcome.entry.op > afterOp) outcomes.push(outcomeKey(outcome));
    },
  });
  return { state, outcomes, snapshotOp };
}

/**
 * The property, on a node whose keyed records (the key table's) are read
 * through a cache of `keyedCacheEntries` records; with a tiny one, the
 * snapshots are taken after every chunk up to the random one, so most of
 * the key table's reads (admission's lookups, apply's, retention's and the
 * bound's) go to LevelDB.
 */
async function replayProperty(keyedCacheEntries: number | undefined, numRuns: number) {
  const tiny = keyedCacheEntries !== undefined;
  await fc.assert(
    fc.asyncProperty(chunks, fc.nat(), async (history, snapshotSeed) => {
      const { dir, cleanup } = await tempDataDir('once-http-replay-');
      const clock = { now: 1_800_000_000_000_000_000n };
      const journal = { clock: () => clock.now };
      try {
        const live = await startTestNode(dir, {
          settings: { httpKeysMax: 3, httpKeyRetentionMs: 2000 },
          journal,
          keyedCacheEntries,
        });
        const bootOp = live.engine.commitOp;
        const liveOutcomes: string[] = [];
        /** Every entry's response by op, as applied live. */
        const applied = new Map<number, string>();
        live.engine.onApplied((outcome) => {
          liveOutcomes.push(outcomeKey(outcome));
          if (outcome.http?.kind === 'applied') {
            applied.set(outcome.entry.op, responseText(outcome.http.response));
          }
        });
        /** The responses submitters got: each must be one an entry recorded. */
        const answered: HttpResponseRecord[] = [];
        const snapshotAfter = snapshotSeed % history.length;
        let snapshotOp = 0;
        for (const [index, chunk] of history.entries()) {
          const waits: Promise<unknown>[] = [];
          for (const next of chunk) {
            if (next.t === 'tick') {
              clock.now += BigInt(next.ms) * MS;
            } else if (next.t === 'limits') {
              const draft = bootDraft({
                clientsMax: 8,
                ring: 8,
                sessionTtlMs: 0,
                httpKeysMax: next.keysMax,
                httpKeyRetentionMs: next.retentionMs,
              });
              waits.push(new Promise((resolve) => live.engine.submit(draft, resolve)));
            } else if (next.via === 'raw') {
              const draft = httpRequestEntryDraft(request(next));
              waits.push(new Promise((resolve) => live.engine.submit(draft, resolve)));
            } else {
              const result = live.engine.submitHttp(request(next), {
                waitInFlight: next.via === 'wait',
              });
              waits.push(
                result.then((outcome) => {
                  if (outcome.kind === 'applied' || outcome.kind === 'replayed') {
                    answered.push(outcome.response);
                  }
                  if (next.via === 'wait') expect(outcome.kind).not.toBe('in-flight');
                }),
              );
            }
          }
          await Promise.all(waits);
          live.engine.applier.httpKeys.assertInvariants(live.engine.settings.httpKeysMax);
          if (index === snapshotAfter || (tiny && index < snapshotAfter)) {
            await live.engine.takeSnapshot();
            snapshotOp = live.engine.commitOp;
          }
        }
        for (const response of answered) {
          expect(applied.get(response.op)).toBe(responseText(response));
        }
        await live.node.stop({ snapshot: false });
        // Once stopped: the stop's REPLY_CHECK is journaled, and replay applies it too.
        const liveState = live.engine.captureSnapshot();

        for (const ignoreSnapshots of [true, false]) {
          const from = ignoreSnapshots ? bootOp : Math.max(bootOp, snapshotOp);
          const replayed = await replayOnly(dir, ignoreSnapshots, journal, from, keyedCacheEntries);
          expect(replayed.snapshotOp).toBe(ignoreSnapshots ? 0 : snapshotOp);
          expect(replayed.state.equals(liveState)).toBe(true);
          const after = (key: string) => Number(key.split(':')[0]) > from;
          expect(replayed.outcomes).toEqual(liveOutcomes.filter(after));
        }
      } finally {
        await cleanup();
      }
    }),
    { numRuns },
  );
}

describe('HTTP requests on a real journal (replay property)', () => {
  it('rebuilds byte-identical state and the same responses from op 1 and from a snapshot at a random op', async () => {
    await replayProperty(undefined, 25);
  }, 180_000);

  it('does so too with a keyed cache of two records, the key table read from LevelDB', async () => {
    await replayProperty(2, 15);
  }, 180_000);
});
