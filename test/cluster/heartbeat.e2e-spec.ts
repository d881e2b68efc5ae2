import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import {
  type ClusterLogger,
  ClusterMembers,
  type HeartbeatOptions,
  type MembershipChange,
  NodeHeartbeat,
} from '@once/cluster/internal';
import { clusterNames } from '@once/cluster';
import { NatsCluster, TcpProxy, eventually } from '@once/testing';
import { TEST_KEYRING } from '../support/test-cluster-key';

/** Short heartbeats, so expiries come quickly; every node of a bucket uses the same TTL. */
const BEAT = { ttlMs: 2000, intervalMs: 500, replicas: 3 } as const;
/** Bounds a wait spanning an expiry: the TTL, the bucket's late expiry, a few sweeps. Hang protection only. */
const EXPIRY_BOUND_MS = 20_000;

/**
 * Node heartbeats on three real nats-server processes: each node writes its
 * key, a watcher keeps the live set and tells who left and why.
 */
describe('given a JetStream cluster and nodes writing heartbeats', () => {
  let cluster: NatsCluster;
  const connections: NatsConnection[] = [];
  const stoppers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    cluster = await NatsCluster.start({ servers: 3 });
  });
  afterEach(async () => {
    await Promise.all(stoppers.splice(0).map((stop) => stop()));
    await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
  });
  afterAll(() => cluster?.cleanup());

  async function connection(servers: string[] = cluster.urls): Promise<NatsConnection> {
    const nc = await connect({
      servers,
      ignoreClusterUpdates: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 100,
    });
    connections.push(nc);
    return nc;
  }

  async function options(clusterName: string, nc?: NatsConnection): Promise<HeartbeatOptions> {
    return { connection: nc ?? (await connection()), clusterName, keyring: TEST_KEYRING, ...BEAT };
  }

  async function node(nodeId: string, clusterName: string, nc?: NatsConnection) {
    const heartbeat = new NodeHeartbeat({
      ...(await options(clusterName, nc)),
      nodeId,
      advertise: `${nodeId}.example:7700`,
    });
    stoppers.push(() => heartbeat.stop());
    await untilStarted(() => heartbeat.start());
    return heartbeat;
  }

  async function watcher(clusterName: string, nc?: NatsConnection, logger?: ClusterLogger) {
    const members = new ClusterMembers({ ...(await options(clusterName, nc)), logger });
    const changes: MembershipChange[] = [];
    members.onChange((change) => changes.push(change));
    stoppers.push(() => members.stop());
    await untilStarted(() => members.start());
    return { members, changes };
  }

  it('when a node stops heartbeating without a goodbye, then the other sees it leave as expired, and the rest stay live', async () => {
    const { members, changes } = await watcher('crash');
    const ncOfB = await connection();
    const a = await node('a', 'crash');
    const b = await node('b', 'crash', ncOfB);
    await eventually(() => members.live().size === 2, 'a and b live', EXPIRY_BOUND_MS);
    expect(members.live().get('a')).toEqual(a.nodeInfo());
    expect(members.live().get('b')).toEqual({
      advertise: 'b.example:7700',
      startedAt: b.nodeInfo().startedAt,
    });

    await ncOfB.close();
    await eventually(() => !members.live().has('b'), 'b gone', EXPIRY_BOUND_MS);

    expect(changes.filter((change) => change.kind === 'left')).toEqual([
      { kind: 'left', node: 'b', info: b.nodeInfo(), reason: 'expired' },
    ]);
    expect([...members.live().keys()]).toEqual(['a']);
    expect(a.isLive()).toBe(true);
    await eventually(() => !b.isLive(), 'b knows it is no longer seen', EXPIRY_BOUND_MS);
  });

  it('when a heartbeat without a valid MAC is written for a node, then no watcher counts that node live, and it says why', async () => {
    const warnings: string[] = [];
    const { members, changes } = await watcher('forged', undefined, {
      log: () => undefined,
      warn: (message) => warnings.push(message),
    });
    const a = await node('a', 'forged');
    await eventually(() => members.live().has('a'), 'a live', EXPIRY_BOUND_MS);
    const kv = await new Kvm(jetstream(await connection())).open(clusterNames('forged').bucket);

    await kv.put(
      'node.evil',
      JSON.stringify({ advertise: '127.0.0.1:17999', startedAt: 1, mac: 'x'.repeat(43) + '=' }),
    );
    await eventually(
      () => warnings.some((warning) => /heartbeat of evil .*does not verify/.test(warning)),
      'the forged heartbeat is reported',
      EXPIRY_BOUND_MS,
    );

    expect([...members.live().keys()]).toEqual(['a']);
    expect(changes.map((change) => change.node)).not.toContain('evil');
    expect(a.isLive()).toBe(true);
  });

  it('when the watcher is cut off from NATS, then nobody leaves on its clock alone, and once back it sees who left', async () => {
    const proxy = await TcpProxy.start({ targetPort: Number(new URL(cluster.urls[1]).port) });
    stoppers.push(() => proxy.close());
    const warnings: string[] = [];
    const cutOff = await watcher('cut', await connection([`nats://127.0.0.1:${proxy.port}`]), {
      log: () => undefined,
      warn: (message) => warnings.push(message),
    });
    const witness = await watcher('cut');
    const ncOfB = await connection();
    await node('a', 'cut');
    await node('b', 'cut', ncOfB);
    await eventually(() => cutOff.members.live().size === 2, 'a and b live', EXPIRY_BOUND_MS);

    proxy.stall();
    await ncOfB.close();
    await eventually(() => !witness.members.live().has('b'), 'b gone', EXPIRY_BOUND_MS);
    // The cut-off watcher has heard from nobody for longer than the TTL and tried to look them up…
    await eventually(
      () =>
        warnings.some((line) => /cannot read the heartbeat of/.test(line)) ||
        cutOff.changes.length > 2,
      'the cut-off watcher looking up the silent nodes',
      EXPIRY_BOUND_MS,
    );
    // …yet lists them all: it could not tell whether they left.
    expect(cutOff.changes.filter((change) => change.kind === 'left')).toEqual([]);
    expect([...cutOff.members.live().keys()].sort()).toEqual(['a', 'b']);

    proxy.resume();
    await eventually(
      () => !cutOff.members.live().has('b'),
      'b gone, seen once back',
      EXPIRY_BOUND_MS,
    );
    expect(cutOff.changes.filter((change) => change.kind === 'left')).toMatchObject([
      { node: 'b', reason: 'expired' },
    ]);
    expect(cutOff.members.live().has('a')).toBe(true);
  });

  it('when a node stops gracefully, then it leaves as stopped, without waiting for its heartbeat to expire', async () => {
    // A TTL far longer than the wait: only the goodbye can make the node leave in time.
    const long = { ttlMs: 10 * EXPIRY_BOUND_MS };
    const nc = await connection();
    const members = new ClusterMembers({
      connection: nc,
      clusterName: 'goodbye',
      keyring: TEST_KEYRING,
      ...BEAT,
      ...long,
    });
    const changes: MembershipChange[] = [];
    members.onChange((change) => changes.push(change));
    stoppers.push(() => members.stop());
    await untilStarted(() => members.start());
    const a = new NodeHeartbeat({
      connection: nc,
      clusterName: 'goodbye',
      keyring: TEST_KEYRING,
      ...BEAT,
      ...long,
      nodeId: 'a',
    });
    await a.start();
    await eventually(() => members.live().has('a'), 'a live', EXPIRY_BOUND_MS);

    await a.stop();
    await eventually(() => !members.live().has('a'), 'a gone', EXPIRY_BOUND_MS);
    expect(
      changes.map((change) => [change.kind, change.node, 'reason' in change ? change.reason : '-']),
    ).toEqual([
      ['joined', 'a', '-'],
      ['left', 'a', 'stopped'],
    ]);
  });

  it('when a node restarts under the same id, then its old run leaves as restarted and the new one joins', async () => {
    const { members, changes } = await watcher('restart');
    const ncOfFirst = await connection();
    const first = await node('a', 'restart', ncOfFirst);
    await eventually(() => members.live().has('a'), 'a live', EXPIRY_BOUND_MS);
    await ncOfFirst.close(); // a crash: no goodbye, its heartbeat still in the bucket

    await new Promise((resolve) => setTimeout(resolve, 2)); // a later start time for the new run
    const second = await node('a', 'restart');
    await eventually(
      () => members.live().get('a')?.startedAt === second.nodeInfo().startedAt,
      'the new run live',
      EXPIRY_BOUND_MS,
    );
    expect(second.nodeInfo().startedAt).not.toBe(first.nodeInfo().startedAt);
    expect(changes).toEqual([
      { kind: 'joined', node: 'a', info: first.nodeInfo() },
      { kind: 'left', node: 'a', info: first.nodeInfo(), reason: 'restarted' },
      { kind: 'joined', node: 'a', info: second.nodeInfo() },
    ]);
  });
});

/** Starts a bucket user, retrying while the JetStream cluster cannot yet create an R3 bucket. */
async function untilStarted(start: () => Promise<void>): Promise<void> {
  await eventually(
    () =>
      start().then(
        () => true,
        () => false,
      ),
    'the cluster bucket opened',
    30_000,
  );
}
