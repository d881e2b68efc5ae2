import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { JetStreamJournal } from '@once/cluster/internal';
import { JournalStore, encodeEntry } from '@once/journal/internal';
import { NatsCluster, eventually } from '@once/testing';
import { Connections, freshClusterName } from '../support/jetstream-journal-harness';
import { type SnapshotlessJournal, portDraft, readAllEntries } from '../support/journal-port-suite';
import { TEST_KEYRING } from '../support/test-cluster-key';

/** One step of a run: a burst of entries (one synchronous turn), or a close and reopen. */
type Step =
  | { readonly kind: 'enqueue'; readonly count: number; readonly bodyBytes: number }
  | { readonly kind: 'reopen' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      count: fc.integer({ min: 1, max: 40 }),
      bodyBytes: fc.integer({ min: 0, max: 3000 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
);

/** A clock replaying `readings` (ns), then standing still: it may go backwards. */
function replayClock(readings: readonly bigint[]): () => bigint {
  let next = 0;
  return () => readings[Math.min(next++, readings.length - 1)];
}

/** Runs `steps` on the journal `open` opens (and reopens), then returns every stored entry's bytes. */
async function run(
  open: () => Promise<SnapshotlessJournal>,
  steps: readonly Step[],
): Promise<string[]> {
  let journal = await open();
  let n = 0;
  try {
    for (const current of steps) {
      if (current.kind === 'reopen') {
        await journal.close();
        journal = await open();
        continue;
      }
      for (let i = 0; i < current.count; i++) journal.enqueue(portDraft(++n, current.bodyBytes));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await eventually(() => journal.pendingCount === 0, 'every entry durable', 30_000);
    return (await readAllEntries(journal, 1, 13)).map((entry) =>
      encodeEntry(entry).toString('hex'),
    );
  } finally {
    await journal.close();
  }
}

/**
 * The same appends, reopens and clock readings give byte-identical journals on
 * LevelDB and on JetStream: same ops, same timestamps (clamped alike when the
 * clock goes back), same encodings and checksums.
 */
describe('given a single nats-server with JetStream and a LevelDB directory', () => {
  let cluster: NatsCluster;
  const connections = new Connections();
  beforeAll(async () => {
    cluster = await NatsCluster.start({ servers: 1 });
  });
  afterAll(async () => {
    await connections.closeAll();
    await cluster?.cleanup();
  });

  it('when the same random steps run on both journals, then they read back the same entry bytes', async () => {
    const connection = await connections.to(cluster.urls);
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 12 }),
        fc.array(fc.bigInt({ min: 1_700_000_000_000_000_000n, max: 1_700_000_000_001_000_000n }), {
          minLength: 1,
          maxLength: 50,
        }),
        async (steps, readings) => {
          const dir = await mkdtemp(join(tmpdir(), 'once-property-'));
          try {
            const levelClock = replayClock(readings);
            const level = await run(() => JournalStore.open(dir, { clock: levelClock }), steps);
            const clusterName = freshClusterName();
            const streamClock = replayClock(readings);
            const stream = await run(
              () =>
                JetStreamJournal.open({
                  connection,
                  clusterName,
                  keyring: TEST_KEYRING,
                  replicas: 1,
                  clock: streamClock,
                  groupEntriesMax: 7,
                }),
              steps,
            );
            expect(stream).toEqual(level);
            expect(level.length).toBe(
              steps.reduce((sum, s) => sum + (s.kind === 'enqueue' ? s.count : 0), 0),
            );
          } finally {
            await rm(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});
