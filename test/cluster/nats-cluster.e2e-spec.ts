import { jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { NatsCluster, eventually } from '@once/testing';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The cluster harness of @once/testing, and the JetStream facts the
 * replicated journal stands on, checked on real servers: an R3 file stream
 * fences a stale writer by its expected last sequence, deduplicates a
 * republished message id, and keeps every acknowledged message when its
 * leader is SIGKILLed.
 */
describe('given three nats-server processes routed into one JetStream cluster', () => {
  let cluster: NatsCluster;
  let nc: Awaited<ReturnType<typeof connect>>;
  beforeAll(async () => {
    cluster = await NatsCluster.start({ servers: 3 });
    nc = await connect({ servers: cluster.urls, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    const jsm = await jetstreamManager(nc);
    await eventually(
      () =>
        jsm.streams
          .add({
            name: 'HARNESS',
            subjects: ['harness.>'],
            storage: StorageType.File,
            retention: RetentionPolicy.Limits,
            num_replicas: 3,
            deny_delete: true,
            deny_purge: true,
          })
          .then(
            () => true,
            () => false,
          ),
      'a JetStream meta leader that takes an R3 stream',
      30_000,
    );
  });
  afterAll(async () => {
    await nc?.close();
    await cluster?.cleanup();
  });

  it('when a writer publishes with the expected last sequence, then a stale one is refused and a repeated message id is a duplicate', async () => {
    const js = jetstream(nc);
    const first = await js.publish('harness.a', 'one', {
      msgID: 'm-1',
      expect: { lastSequence: 0 },
    });
    expect(first.seq).toBe(1);
    await expect(
      js.publish('harness.a', 'stale', { msgID: 'm-x', expect: { lastSequence: 0 } }),
    ).rejects.toThrow(/wrong last sequence/);
    const again = await js.publish('harness.a', 'one', {
      msgID: 'm-1',
      expect: { lastSequence: 0 },
    });
    expect(again).toMatchObject({ seq: 1, duplicate: true });
  });

  it('when the stream leader is SIGKILLed, then a new leader takes appends and every acknowledged message is still there', async () => {
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    const before = (await jsm.streams.info('HARNESS')).state.last_seq;
    const leader = (await jsm.streams.info('HARNESS')).cluster?.leader;
    const index = cluster.names.indexOf(leader ?? '');
    expect(index).toBeGreaterThanOrEqual(0);

    await cluster.kill(index);
    let next = before;
    await eventually(
      () =>
        js
          .publish('harness.a', `after-${before}`, {
            msgID: `after-${before}`,
            expect: { lastSequence: before },
            timeout: 1_000,
          })
          .then(
            (ack) => ((next = ack.seq), true),
            () => false,
          ),
      'an append through the new stream leader',
      30_000,
    );
    expect(next).toBe(before + 1);
    const info = await jsm.streams.info('HARNESS');
    expect(info.cluster?.leader).not.toBe(leader);
    expect(info.state.messages).toBe(before + 1);

    await cluster.restart(index);
    expect(cluster.running(index)).toBe(true);
  });
});

describe('given a nats-server that never becomes ready the first time it is started', () => {
  let dir: string;
  let cluster: NatsCluster | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'once-nats-stall-'));
  });
  afterAll(async () => {
    await cluster?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('when the cluster is started, then it is formed again on fresh ports and every server is ready', async () => {
    // Given: a wrapper whose first run stalls silently (a cluster that never
    // elects its metadata leader looks the same), then runs the real server.
    const real = process.env.ONCE_NATS_SERVER_BIN ?? 'nats-server';
    const marker = join(dir, 'stalled-once');
    const wrapper = join(dir, 'nats-server-stalling-once');
    await writeFile(
      wrapper,
      [
        '#!/bin/sh',
        `if [ "$1" != "--version" ] && [ ! -e '${marker}' ]; then : > '${marker}'; exec sleep 60; fi`,
        `exec ${real} "$@"`,
        '',
      ].join('\n'),
    );
    await chmod(wrapper, 0o755);

    // When
    cluster = await NatsCluster.start({ servers: 3, bin: wrapper, readyTimeoutMs: 10_000 });

    // Then
    expect(existsSync(marker)).toBe(true);
    expect([0, 1, 2].map((index) => cluster!.running(index))).toEqual([true, true, true]);
    expect([0, 1, 2].every((index) => cluster!.logs(index).includes('metadata leader'))).toBe(true);
  }, 60_000);
});
