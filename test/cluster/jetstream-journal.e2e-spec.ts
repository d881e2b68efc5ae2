import { randomBytes } from 'node:crypto';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { type MsgHdrs } from '@nats-io/nats-core';
import {
  GroupAuthenticator,
  JetStreamJournal,
  clusterConfigBucket,
  encodeGroupMessage,
} from '@once/cluster/internal';
import { JournalFencedError, clusterNames } from '@once/cluster';
import { type JournalEntry, encodeEntry } from '@once/journal/internal';
import { NatsCluster, TcpProxy, eventually } from '@once/testing';
import {
  Connections,
  freshClusterName,
  jetStreamHarness,
} from '../support/jetstream-journal-harness';
import {
  comparable,
  describeJournalPort,
  portDraft,
  readAllEntries,
} from '../support/journal-port-suite';
import { TEST_KEYRING } from '../support/test-cluster-key';

/**
 * The replicated journal on three real nats-server processes: the journal
 * port's conformance suite, then what only a replicated stream can do wrong
 * (a stale second writer, an ack lost with its stream leader, groups in
 * flight together, readers on other connections, a follower's tail).
 */
describe('given three nats-server processes routed into one JetStream cluster', () => {
  let cluster: NatsCluster;
  beforeAll(async () => {
    cluster = await NatsCluster.start({ servers: 3 });
  });
  afterAll(async () => {
    await cluster?.cleanup();
  });

  describeJournalPort('JetStreamJournal', () => jetStreamHarness(cluster), { snapshots: false });

  describe('a JetStream journal', () => {
    const connections = new Connections();
    const journals: JetStreamJournal[] = [];
    let clusterName: string;
    const open = async (
      servers: string | string[] = cluster.urls,
      options: Partial<Parameters<typeof JetStreamJournal.open>[0]> = {},
    ) => {
      const journal = await JetStreamJournal.open({
        connection: await connections.to(servers),
        clusterName,
        keyring: TEST_KEYRING,
        ...options,
      });
      journals.push(journal);
      return journal;
    };
    const appendDurably = async (journal: JetStreamJournal, from: number, to: number) => {
      for (let n = from; n <= to; n++) journal.enqueue(portDraft(n));
      await eventually(() => journal.pendingCount === 0, `ops up to ${to} durable`, 30_000);
    };
    /** Publishes `message` straight to the journal's subject, as no writer would. */
    const publishAround = async (message: { payload: Buffer; headers: MsgHdrs }) => {
      const js = jetstream(await connections.to(cluster.urls));
      await js.publish(clusterNames(clusterName).subject, message.payload, {
        headers: message.headers,
      });
    };
    const streamInfo = async () => {
      const jsm = await jetstreamManager(await connections.to(cluster.urls));
      return jsm.streams.info(clusterNames(clusterName).stream);
    };

    beforeEach(() => {
      clusterName = freshClusterName();
    });
    afterEach(async () => {
      await Promise.allSettled(journals.splice(0).map((journal) => journal.close()));
      await connections.closeAll();
    });

    it('given a new cluster, when three nodes open its journal at once through three servers, then one stream holds it and they share one secret', async () => {
      const [a, b, c] = await Promise.all(cluster.urls.map((url) => open(url)));
      expect(b.nodeSecret.equals(a.nodeSecret)).toBe(true);
      expect(c.nodeSecret.equals(a.nodeSecret)).toBe(true);
      expect((await streamInfo()).config).toMatchObject({ num_replicas: 3, deny_delete: true });
      await appendDurably(a, 1, 3);
      expect((await readAllEntries(c)).map((entry) => entry.op)).toEqual([1, 2, 3]);
    });

    it('given a config bucket holding a resume-token secret in clear (an earlier build), when the journal opens, then that secret is purged and the one in use is derived from the cluster key', async () => {
      const kv = await new Kvm(jetstream(await connections.to(cluster.urls))).create(
        clusterConfigBucket(clusterName),
        { history: 1, replicas: 3, storage: StorageType.File, allow_direct: false },
      );
      const clear = randomBytes(32);
      await kv.put('secret', clear);

      const journal = await open();

      expect(journal.nodeSecret.equals(TEST_KEYRING.resumeSecret(clusterName))).toBe(true);
      expect(journal.nodeSecret.equals(clear)).toBe(false);
      const left = await kv.get('secret');
      expect(left === null || left.operation !== 'PUT').toBe(true);
      const history = await kv.history({ key: 'secret' });
      for await (const entry of history)
        expect(Buffer.from(entry.value).includes(clear)).toBe(false);
    });

    it('given a writer, when a stale second writer appends, then it is refused with JOURNAL_FENCED and nothing of it is stored', async () => {
      const writer = await open();
      await appendDurably(writer, 1, 5);
      const stale = await open();
      expect(stale.lastOp).toBe(5);
      await appendDurably(writer, 6, 10);

      const failures: Error[] = [];
      stale.onFailure((error) => failures.push(error));
      const staleDurable: JournalEntry[] = [];
      stale.onDurable((entries) => staleDurable.push(...entries));
      [101, 102, 103].forEach((n) => stale.enqueue(portDraft(n)));
      await eventually(() => failures.length > 0, 'the stale writer fenced', 30_000);

      expect(failures).toEqual([expect.any(JournalFencedError)]);
      // Ops 1..5 and 6..10 went out as one message each: the stale writer's ops
      // 6.. were to be message 2, which the writer's 6..10 hold.
      expect(failures[0]).toMatchObject({ code: 'JOURNAL_FENCED', seq: 2, firstOp: 6 });
      expect(staleDurable).toEqual([]);
      expect(() => stale.enqueue(portDraft(104))).toThrow(failures[0]);
      const reader = await open();
      const stored = await readAllEntries(reader);
      expect(stored.map((entry) => entry.request)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

      await appendDurably(writer, 11, 11);
      expect((await readAllEntries(reader, 11)).map((entry) => entry.request)).toEqual([11]);
    });

    it('when a burst is enqueued, then several groups are in flight at once and each lands at its predicted sequence', async () => {
      const writer = await open(cluster.urls, { groupEntriesMax: 4, groupsInFlightMax: 8 });
      for (let n = 1; n <= 64; n++) writer.enqueue(portDraft(n));
      await new Promise((resolve) => setImmediate(resolve));
      expect(writer.groupsInFlight).toBe(8);
      await eventually(() => writer.pendingCount === 0, 'the burst durable', 30_000);

      expect(writer.writeStats).toEqual({ batches: 16, entries: 64 });
      expect(writer.appendStats.groupsRepublished).toBe(0);
      expect((await streamInfo()).state.messages).toBe(16);
      const reader = await open();
      expect((await readAllEntries(reader)).map((entry) => entry.op)).toEqual(
        Array.from({ length: 64 }, (_, i) => i + 1),
      );
    });

    it('given the acks held past their timeout, when the groups are republished with their ids, then the stream answers duplicate and holds each op once', async () => {
      const proxy = await TcpProxy.start({ targetPort: Number(new URL(cluster.urls[0]).port) });
      try {
        const writer = await open(`nats://127.0.0.1:${proxy.port}`, {
          ackTimeoutMs: 200,
          groupEntriesMax: 5,
        });
        await appendDurably(writer, 1, 5);
        proxy.setMode('toClient', 'hold');
        for (let n = 6; n <= 20; n++) writer.enqueue(portDraft(n));
        await eventually(
          () => writer.appendStats.republishes >= 2,
          'a republish while the acks are held',
          30_000,
        );
        proxy.setMode('toClient', 'forward');
        await eventually(() => writer.pendingCount === 0, 'ops up to 20 durable', 30_000);

        expect(writer.failed).toBeUndefined();
        expect(writer.appendStats.duplicates).toBeGreaterThanOrEqual(1);
        expect(writer.writeStats).toEqual({ batches: 4, entries: 20 });
        expect((await streamInfo()).state.messages).toBe(4);
        const reader = await open();
        expect((await readAllEntries(reader)).map((entry) => entry.request)).toEqual(
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
      } finally {
        await proxy.close();
      }
    });

    it('given entries written through one server, when another connection to another server opens the journal, then it reads them back and continues after them', async () => {
      const writer = await open(cluster.urls[0]);
      await appendDurably(writer, 1, 30);
      const written = (await readAllEntries(writer)).map(comparable);
      await writer.close();

      const other = await open(cluster.urls[2]);
      expect(other.lastOp).toBe(30);
      expect(other.nodeSecret.equals(writer.nodeSecret)).toBe(true);
      expect((await readAllEntries(other, 1, 8)).map(comparable)).toEqual(written);
      await appendDurably(other, 31, 31);
      expect(await other.streamLastOp()).toBe(31);
    });

    it('given a follower tailing the stream, when the writer appends, then the follower sees every entry in order, and its read barrier is the last acknowledged op', async () => {
      const writer = await open(cluster.urls[0]);
      await appendDurably(writer, 1, 10);
      const follower = await open(cluster.urls[1]);
      const seen: number[] = [];
      const stop = new AbortController();
      const tail = (async () => {
        for await (const { entries, encoded } of follower.follow(4, { signal: stop.signal })) {
          seen.push(...entries.map((entry) => entry.op));
          // Each entry comes with the stored bytes it was read from.
          entries.forEach((entry, i) => expect(encoded[i].equals(encodeEntry(entry))).toBe(true));
        }
      })();

      await eventually(() => seen.length === 7, 'the follower caught up to op 10', 30_000);
      for (let n = 11; n <= 40; n++) {
        writer.enqueue(portDraft(n));
        if (n % 7 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      await eventually(() => writer.pendingCount === 0, 'ops up to 40 durable', 30_000);
      expect(await follower.streamLastOp()).toBe(40);
      await eventually(() => seen.length === 37, 'the follower saw op 40', 30_000);
      stop.abort();
      await tail;

      expect(seen).toEqual(Array.from({ length: 37 }, (_, i) => i + 4));
      expect(follower.durableOp).toBe(40);
    });

    it('given a damaged message appended around the journal, then a read names its op and no writer continues after it', async () => {
      const writer = await open();
      await appendDurably(writer, 1, 5);
      await writer.close();
      const reader = await open();
      const damaged = encodeGroupMessage(
        [encodeEntry({ ...portDraft(6), op: 6, timestamp: 1n })],
        6,
        2,
        new GroupAuthenticator(TEST_KEYRING, clusterNames(clusterName).stream),
      );
      damaged.payload[damaged.payload.length - 1] ^= 0xff;
      await publishAround(damaged);

      // Damaged after it was signed: its MAC no longer verifies.
      await expect(readAllEntries(reader, 3)).rejects.toMatchObject({
        code: 'JOURNAL_GROUP_UNVERIFIED',
        op: 6,
      });
      await expect(open()).rejects.toMatchObject({ code: 'JOURNAL_GROUP_UNVERIFIED', op: 6 });
    });

    it('given a message appended around the journal that skips ops, then a read and a tail stop at the first missing op', async () => {
      const writer = await open();
      await appendDurably(writer, 1, 5);
      await writer.close();
      const reader = await open();
      await publishAround(
        encodeGroupMessage(
          [encodeEntry({ ...portDraft(8), op: 8, timestamp: 1n })],
          8,
          2,
          new GroupAuthenticator(TEST_KEYRING, clusterNames(clusterName).stream),
        ),
      );

      await expect(readAllEntries(reader)).rejects.toMatchObject({
        code: 'JOURNAL_CORRUPT',
        op: 6,
        reason: 'it is missing (stream message 2 starts at op 8)',
      });
      const seen: number[] = [];
      const tail = (async () => {
        for await (const { entries } of reader.follow(2)) seen.push(...entries.map((e) => e.op));
      })();
      await expect(tail).rejects.toMatchObject({ code: 'JOURNAL_CORRUPT', op: 6 });
      expect(seen).toEqual([2, 3, 4, 5]);
    });

    it('given a stream of that name that allows deletes, then opening refuses it with JOURNAL_STREAM_MISMATCH', async () => {
      const names = clusterNames(clusterName);
      const jsm = await jetstreamManager(await connections.to(cluster.urls));
      await jsm.streams.add({
        name: names.stream,
        subjects: [names.subject],
        storage: StorageType.File,
        num_replicas: 1,
      });
      await expect(open()).rejects.toMatchObject({ code: 'JOURNAL_STREAM_MISMATCH' });
    });

    it('when an entry is larger than a message carries, then enqueue refuses it and takes no op; a body of entryBodyBytesMax is stored', async () => {
      const writer = await open();
      const bodyBytesMax = writer.entryBodyBytesMax;
      // NATS's default max_payload (1 MiB) less the message's and the entry's headers.
      expect(bodyBytesMax).toBeLessThan(1024 * 1024);
      expect(() => writer.enqueue(portDraft(1, bodyBytesMax + 1))).toThrow(
        expect.objectContaining({ code: 'INVALID_ENTRY' }),
      );
      expect(writer.lastOp).toBe(0);
      expect(writer.enqueue(portDraft(1, bodyBytesMax)).op).toBe(1);
      await eventually(() => writer.pendingCount === 0, 'the largest entry durable', 30_000);
      expect((await readAllEntries(writer))[0].body.byteLength).toBe(bodyBytesMax);
    });
    it('given the stream leader is SIGKILLed while groups are in flight, then they are republished with their ids and every op is stored exactly once', async () => {
      const jsm = await jetstreamManager(await connections.to(cluster.urls));
      const writer = await open(cluster.urls, { groupEntriesMax: 16 });
      await appendDurably(writer, 1, 16);
      const leader = (await jsm.streams.info(clusterNames(clusterName).stream)).cluster?.leader;
      const leaderIndex = cluster.names.indexOf(leader ?? '');
      expect(leaderIndex).toBeGreaterThanOrEqual(0);
      const reported: number[] = [];
      writer.onDurable((entries) => reported.push(...entries.map((entry) => entry.op)));

      let n = 16;
      let killed = false;
      let afterKill = 0;
      const load = (async () => {
        while (!killed || afterKill < 400) {
          if (writer.pendingCount >= 256) {
            await new Promise((resolve) => setTimeout(resolve, 2));
            continue;
          }
          for (let i = 0; i < 16; i++) writer.enqueue(portDraft(++n));
          if (killed) afterKill += 16;
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      await eventually(() => n >= 400, 'groups in flight', 30_000);
      await cluster.kill(leaderIndex);
      killed = true;
      try {
        await load;
        await eventually(
          () => writer.pendingCount === 0,
          'every op durable after the election',
          90_000,
        );

        expect(writer.failed).toBeUndefined();
        expect(writer.appendStats.groupsRepublished).toBeGreaterThan(0);
        expect(reported).toEqual(Array.from({ length: n - 16 }, (_, i) => i + 17));
        const reader = await open(cluster.urls);
        const stored = await readAllEntries(reader);
        expect(stored.map((entry) => entry.op)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
        expect(stored.map((entry) => entry.request)).toEqual(stored.map((entry) => entry.op));
        expect((await streamInfo()).state.messages).toBe(writer.writeStats.batches);
      } finally {
        await cluster.restart(leaderIndex);
      }
    }, 180_000);
  });
});
