import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JetStreamJournal, StreamFollower } from '@once/cluster/internal';
import { LocalTailDivergedError } from '@once/cluster';
import { type JournalEntry, JournalStore, encodeEntry } from '@once/journal/internal';
import { NatsCluster, eventually } from '@once/testing';
import { Connections, freshClusterName } from '../support/jetstream-journal-harness';
import { portDraft } from '../support/journal-port-suite';
import { TEST_KEYRING } from '../support/test-cluster-key';

async function readAll(journal: {
  readBatches(fromOp: number): AsyncIterable<JournalEntry[]>;
}): Promise<Buffer[]> {
  const bytes: Buffer[] = [];
  for await (const batch of journal.readBatches(1)) bytes.push(...batch.map((e) => encodeEntry(e)));
  return bytes;
}

/**
 * A follower's local copy of the cluster's journal: the stream's entries,
 * with their ops and timestamps, in the node's own LevelDB (where replay and
 * snapshots find them), caught up after a restart, and refused when the
 * local tail and the stream disagree.
 */
describe('given a leader appending to the cluster stream and a follower copying it', () => {
  let cluster: NatsCluster;
  const connections = new Connections();
  let root: string;
  const opened: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    cluster = await NatsCluster.start({ servers: 3 });
  });
  afterAll(async () => {
    await connections.closeAll();
    await cluster?.cleanup();
  });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'once-follower-'));
  });
  afterEach(async () => {
    await Promise.allSettled(opened.splice(0).map((journal) => journal.close()));
    await rm(root, { recursive: true, force: true });
  });

  async function openStream(clusterName: string): Promise<JetStreamJournal> {
    const journal = await JetStreamJournal.open({
      connection: await connections.to(cluster.urls),
      clusterName,
      keyring: TEST_KEYRING,
      replicas: 3,
    });
    opened.push(journal);
    return journal;
  }

  async function openLocal(name = 'local'): Promise<JournalStore> {
    const store = await JournalStore.open(join(root, name));
    opened.push(store);
    return store;
  }

  async function appendAll(leader: JetStreamJournal, from: number, count: number): Promise<void> {
    for (let i = 0; i < count; i++) leader.enqueue(portDraft(from + i));
    await eventually(() => leader.pendingCount === 0, 'the leader’s appends acknowledged', 30_000);
  }

  it('when the leader appends, then the local copy holds the stream byte for byte, and a restarted follower catches up from its own tail', async () => {
    // Given a follower copying into its local journal
    const clusterName = freshClusterName();
    const leader = await openStream(clusterName);
    let local = await openLocal();
    let follower = await StreamFollower.start(await openStream(clusterName), local);

    // When the leader appends 200 entries
    await appendAll(leader, 1, 200);

    // Then the local journal reports them durable and reads back the stream's bytes
    await eventually(() => local.durableOp === 200, 'the follower copied op 200', 30_000);
    expect(await readAll(local)).toEqual(await readAll(leader));

    // And when the follower stops, the leader appends more, and the follower restarts on its local copy
    await follower.stop();
    await local.close();
    await appendAll(leader, 201, 50);
    local = await openLocal();
    follower = await StreamFollower.start(await openStream(clusterName), local);
    await eventually(() => local.durableOp === 250, 'the restarted follower caught up', 30_000);
    expect(await readAll(local)).toEqual(await readAll(leader));
    await follower.stop();
  });

  it('when the local journal holds an op the stream does not, then the follower refuses to start, naming it', async () => {
    const clusterName = freshClusterName();
    const leader = await openStream(clusterName);
    await appendAll(leader, 1, 3);
    const local = await openLocal();
    for await (const batch of leader.readBatches(1)) for (const e of batch) local.enqueueCopy(e);
    await local.append(portDraft(99)); // op 4: acknowledged locally, never in the stream

    const error = await StreamFollower.start(await openStream(clusterName), local).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LocalTailDivergedError);
    expect((error as LocalTailDivergedError).op).toBe(4);
    expect((error as Error).message).toMatch(/at op 4: the stream does not hold this op/);
  });

  it('when the local journal holds other bytes at an op, then the follower refuses to start, naming it', async () => {
    const clusterName = freshClusterName();
    const leader = await openStream(clusterName);
    await appendAll(leader, 1, 3);
    const local = await openLocal();
    for await (const batch of leader.readBatches(1))
      for (const e of batch) if (e.op < 3) local.enqueueCopy(e);
    await local.append(portDraft(7)); // op 3: another entry than the stream's

    const error = await StreamFollower.start(await openStream(clusterName), local).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LocalTailDivergedError);
    expect((error as LocalTailDivergedError).op).toBe(3);
    expect((error as Error).message).toMatch(/at op 3: the stream holds other bytes/);
  });
});
