import { JetStreamApiCodes, jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import {
  ClusterLease,
  type ClusterLeaseOptions,
  type LeaseRole,
  encodeLeaseValue,
} from '@once/cluster/internal';
import { clusterNames } from '@once/cluster';
import { NatsCluster, TcpProxy, eventually } from '@once/testing';
import { TEST_KEYRING, testLeaseSeal } from '../support/test-cluster-key';

/** A short lease, so expiries come quickly; every node of a bucket uses the same. */
const LEASE = { ttlMs: 2000, renewIntervalMs: 500 } as const;
/** Bounds a wait spanning an expiry: the TTL, the bucket's late expiry, a few rounds. Hang protection only. */
const TAKEOVER_BOUND_MS = 20_000;

interface Contender {
  readonly lease: ClusterLease;
  /** Every role it announced, in order, with a global sequence number to order them across nodes. */
  readonly events: Array<{ role: LeaseRole; order: number }>;
}

let order = 0;

/**
 * The cluster lease on three real nats-server processes: contenders with
 * their own connections, a holder whose connection closes, a holder cut off
 * from NATS by a proxy that stops forwarding.
 */
describe('given a JetStream cluster and nodes contending for the cluster lease', () => {
  let cluster: NatsCluster;
  const connections: NatsConnection[] = [];
  const leases: ClusterLease[] = [];
  const proxies: TcpProxy[] = [];

  beforeAll(async () => {
    cluster = await NatsCluster.start({ servers: 3 });
  });
  afterEach(async () => {
    await Promise.all(leases.splice(0).map((lease) => lease.stop()));
    await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  });
  afterAll(() => cluster?.cleanup());

  async function connection(servers: string[] = cluster.urls): Promise<NatsConnection> {
    const nc = await connect({
      servers,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 100,
      ignoreClusterUpdates: true,
    });
    connections.push(nc);
    return nc;
  }

  async function contender(
    nodeId: string,
    clusterName: string,
    nc?: NatsConnection,
    extra: Partial<ClusterLeaseOptions> = {},
  ): Promise<Contender> {
    const lease = new ClusterLease({
      connection: nc ?? (await connection()),
      nodeId,
      keyring: TEST_KEYRING,
      advertise: `${nodeId}.example:7700`,
      clusterName,
      replicas: 3,
      ...LEASE,
      ...extra,
    });
    const events: Contender['events'] = [];
    lease.onChange((role) => events.push({ role, order: order++ }));
    leases.push(lease);
    await startWhenMetaLeaderAnswers(lease);
    return { lease, events };
  }

  it('when two nodes start together, then exactly one leads at term 1 and the other follows it, knowing its address', async () => {
    const [a, b] = await Promise.all([contender('a', 'pair'), contender('b', 'pair')]);
    await eventually(
      () => roles(a, b) === 'follower,leader' || roles(a, b) === 'leader,follower',
      'one leader and one follower',
      TAKEOVER_BOUND_MS,
    );
    const [leader, follower] = a.lease.role().role === 'leader' ? [a, b] : [b, a];
    const held = leader.lease.role();
    expect(held).toMatchObject({ role: 'leader', term: 1 });
    expect(follower.lease.role()).toEqual({ role: 'follower', holder: leader.lease.current() });
    expect(follower.lease.current()?.advertise).toBe(
      `${leader.lease.current()?.node}.example:7700`,
    );
    // Renewals go on without changing anyone's mind.
    const renewals = await revisionsOf('pair', 3);
    expect(renewals[2]).toBeGreaterThan(renewals[0]);
    expect(leader.events.map((event) => event.role.role)).toEqual(['leader']);
    expect(follower.lease.role()).toMatchObject({ role: 'follower', holder: { term: 1 } });
  });

  it('when the leader’s connection closes, then the other takes over after the TTL with the next term, and the stale holder’s write is refused', async () => {
    const ncOfA = await connection();
    const a = await contender('a', 'takeover', ncOfA);
    await eventually(() => a.lease.role().role === 'leader', 'a leads', TAKEOVER_BOUND_MS);
    const b = await contender('b', 'takeover');
    await eventually(() => b.lease.role().role === 'follower', 'b follows a', TAKEOVER_BOUND_MS);
    const kv = await bucketOf('takeover');
    const staleRevision = (await kv.get('leader'))!.revision;

    await ncOfA.close();
    await eventually(() => b.lease.role().role === 'leader', 'b takes over', TAKEOVER_BOUND_MS);

    expect(b.lease.role()).toMatchObject({ role: 'leader', term: 2, holder: { node: 'b' } });
    expect(a.lease.role()).toEqual({ role: 'none' });
    const lastOfA = a.events.at(-1)!;
    const takeover = b.events.find((event) => event.role.role === 'leader')!;
    expect(lastOfA.role).toEqual({ role: 'none' });
    expect(lastOfA.order).toBeLessThan(takeover.order);
    const stale = encodeLeaseValue(
      { node: 'a', advertise: 'a.example:7700', term: 1 },
      testLeaseSeal('takeover'),
    );
    await expect(kv.update('leader', stale, staleRevision)).rejects.toMatchObject({
      code: JetStreamApiCodes.StreamWrongLastSequence,
    });
    expect((await kv.get('leader'))?.json()).toMatchObject({ node: 'b', term: 2 });
  });

  it('when the leader is cut off from NATS, then it stops leading on its own before the other takes over, and follows once it is back', async () => {
    const proxy = await TcpProxy.start({ targetPort: Number(new URL(cluster.urls[0]).port) });
    proxies.push(proxy);
    const a = await contender(
      'a',
      'partition',
      await connection([`nats://127.0.0.1:${proxy.port}`]),
    );
    await eventually(() => a.lease.role().role === 'leader', 'a leads', TAKEOVER_BOUND_MS);
    const b = await contender('b', 'partition');
    await eventually(() => b.lease.role().role === 'follower', 'b follows a', TAKEOVER_BOUND_MS);

    proxy.stall();
    await eventually(() => b.lease.role().role === 'leader', 'b takes over', TAKEOVER_BOUND_MS);

    const aLost = a.events.findIndex((event) => event.role.role === 'none');
    expect(aLost).toBeGreaterThan(0);
    expect(a.events[aLost].order).toBeLessThan(
      b.events.find((event) => event.role.role === 'leader')!.order,
    );
    expect(b.lease.role()).toMatchObject({ term: 2 });

    proxy.resume();
    await eventually(
      () => a.lease.role().role === 'follower' && a.lease.current()?.node === 'b',
      'a follows b once its connection forwards again',
      TAKEOVER_BOUND_MS,
    );
    expect(a.lease.current()).toEqual(b.lease.current());
  });

  it('when the leader stops, then it releases the key and the other takes it without waiting for the key to expire', async () => {
    // A lease far longer than the wait for the takeover: only the release can free the key in time.
    const long = { ttlMs: 10 * TAKEOVER_BOUND_MS };
    const a = await contender('a', 'release', undefined, long);
    await eventually(() => a.lease.role().role === 'leader', 'a leads', TAKEOVER_BOUND_MS);
    const b = await contender('b', 'release', undefined, long);
    await eventually(() => b.lease.role().role === 'follower', 'b follows a', TAKEOVER_BOUND_MS);
    const kv = await bucketOf('release');
    const deletes: string[] = [];
    const watch = await kv.watch({ key: 'leader', include: 'updates' });
    void (async () => {
      for await (const entry of watch) deletes.push(entry.operation);
    })();

    await a.lease.stop();
    expect(a.lease.role()).toEqual({ role: 'none' });
    await eventually(
      () => b.lease.role().role === 'leader',
      'b takes over the released key',
      TAKEOVER_BOUND_MS,
    );
    // b leads once its write is acknowledged; the watch delivers it after that.
    await eventually(
      () => deletes.length >= 2,
      "the watch seeing the release and b's write",
      TAKEOVER_BOUND_MS,
    );
    watch.stop();
    expect(b.lease.role()).toMatchObject({ term: 2 });
    // The release is a delete, followed by b's write over it: no expiry was waited for.
    expect(deletes.slice(0, 2)).toEqual(['DEL', 'PUT']);
  });

  it('when a term higher than the bucket’s is known elsewhere, then the next leader takes the term after it', async () => {
    const a = await contender('a', 'floor', undefined, { termFloor: () => Promise.resolve(41) });
    await eventually(() => a.lease.role().role === 'leader', 'a leads', TAKEOVER_BOUND_MS);
    expect(a.lease.role()).toMatchObject({ term: 42 });
  });

  it('when a node comes with another lease TTL than the bucket’s, then it refuses to start, naming both', async () => {
    await contender('a', 'ttls');
    const other = new ClusterLease({
      connection: await connection(),
      nodeId: 'b',
      keyring: TEST_KEYRING,
      clusterName: 'ttls',
      ttlMs: 2 * LEASE.ttlMs,
      renewIntervalMs: LEASE.renewIntervalMs,
    });
    await expect(other.start()).rejects.toMatchObject({
      code: 'CLUSTER_BUCKET_MISMATCH',
      message: expect.stringMatching(/expires values after 2000 ms, this node after 4000 ms/),
    });
    expect(other.role()).toEqual({ role: 'none' });
  });

  /** Revisions of the lease key, read until `count` distinct ones are seen. */
  it.each([
    ['a value without a MAC naming another node and address', false],
    ['a validly signed value of another node at the held term (a replay)', true],
  ])(
    'when %s is written to the key, then the leader keeps leading and writes over it, and the follower keeps following it',
    async (_what, signed) => {
      const name = signed ? 'replayed' : 'forged';
      const a = await contender('a', name);
      await eventually(() => a.lease.role().role === 'leader', 'a leads', TAKEOVER_BOUND_MS);
      const b = await contender('b', name);
      await eventually(() => b.lease.role().role === 'follower', 'b follows', TAKEOVER_BOUND_MS);
      const kv = await bucketOf(name);
      const intruder = { node: 'evil', advertise: '127.0.0.1:17999', term: 1 };

      for (let round = 0; round < 3; round++) {
        await kv.put(
          'leader',
          signed
            ? encodeLeaseValue(intruder, testLeaseSeal(name))
            : JSON.stringify({ ...intruder, term: 50 + round }),
        );
        await eventually(
          async () => (await kv.get('leader'))?.json<{ node: string }>().node === 'a',
          'a writes its renewal over the intruder',
          TAKEOVER_BOUND_MS,
        );
      }

      expect(a.events.map((event) => event.role.role)).toEqual(['leader']);
      expect(a.lease.role()).toMatchObject({ role: 'leader', term: 1 });
      expect(b.lease.role()).toMatchObject({ role: 'follower', holder: { node: 'a', term: 1 } });
      const named = [...a.events, ...b.events].map((event) => JSON.stringify(event.role));
      expect(named.join()).not.toContain('evil');
    },
  );

  async function revisionsOf(clusterName: string, count: number): Promise<number[]> {
    const kv = await bucketOf(clusterName);
    const seen: number[] = [];
    await eventually(
      async () => {
        const revision = (await kv.get('leader'))?.revision;
        if (revision !== undefined && !seen.includes(revision)) seen.push(revision);
        return seen.length >= count;
      },
      `${count} renewals`,
      TAKEOVER_BOUND_MS,
    );
    return seen;
  }

  async function bucketOf(clusterName: string) {
    const nc = await connection();
    return new Kvm(jetstream(nc)).open(clusterNames(clusterName).bucket);
  }
});

function roles(...contenders: Contender[]): string {
  return contenders
    .map((contender) => contender.lease.role().role)
    .sort()
    .join(',');
}

/** Starts `lease`, retrying while the JetStream cluster cannot yet create an R3 bucket. */
async function startWhenMetaLeaderAnswers(lease: ClusterLease): Promise<void> {
  await eventually(
    () =>
      lease.start().then(
        () => true,
        () => false,
      ),
    'the lease bucket opened',
    30_000,
  );
}
