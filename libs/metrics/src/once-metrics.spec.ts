import { type Engine, type OnceNode } from '@once/engine/internal';
import { type JournalEntry, type JournalStore } from '@once/journal/internal';
import { clientIdFromBigInt } from '@once/protocol/internal';
import { eventually } from '@once/testing';
import { Counter, Registry } from 'prom-client';
import {
  commandDraft,
  logoutDraft,
  registerDraft,
} from '../../engine/src/__fixtures__/entry-drafts.fixture';
import {
  type TestNode,
  startTestNode,
  submit,
  tempDataDir,
} from '../../engine/src/__fixtures__/test-node.fixture';
import { type OnceMetricsSource } from './metrics-source';
import { OnceMetrics } from './once-metrics';
import { spinMainThread } from './__fixtures__/spin.fixture';

const ALICE = clientIdFromBigInt(0xa11cen);
const BOB = clientIdFromBigInt(0xb0bn);

type Labels = Record<string, string | number>;

/** The value of `name` (with exactly `labels`), as a scrape would report it. */
async function valueOf(
  metrics: OnceMetrics,
  name: string,
  labels: Labels = {},
): Promise<number | undefined> {
  const metric = metrics.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return values.find((value) => JSON.stringify(Object.entries(value.labels).sort()) === wanted)
    ?.value;
}

/** One series of histogram `name`: its `_count` or `_sum`. */
async function seriesOf(
  metrics: OnceMetrics,
  name: string,
  suffix: '_count' | '_sum',
): Promise<number | undefined> {
  const { values } = await metrics.registry.getSingleMetric(name)!.get();
  return (values as Array<{ metricName?: string; value: number }>).find(
    (value) => value.metricName === name + suffix,
  )?.value;
}

function sourceOf(node: OnceNode): OnceMetricsSource {
  return { engine: node.engine, journal: node.journal };
}

async function register(engine: Engine, client: string): Promise<number> {
  const outcome = await submit(engine, registerDraft(client, 1));
  return outcome.registered!.epoch;
}

describe('OnceMetrics on a live node', () => {
  let cleanup: () => Promise<void>;
  let test: TestNode;
  let metrics: OnceMetrics;

  beforeEach(async () => {
    let dir: string;
    ({ dir, cleanup } = await tempDataDir('once-metrics-'));
    test = await startTestNode(dir, {
      settings: { clientsMax: 1, ring: 4, httpKeysMax: 1 },
    });
    metrics = new OnceMetrics({ source: sourceOf(test.node) });
  });

  afterEach(async () => {
    metrics.detach();
    await test.node.stop();
    await cleanup();
  });

  it('counts commits by operation and reply status, a committed refusal as REFUSED', async () => {
    const epoch = await register(test.engine, ALICE);
    for (let request = 1; request <= 3; request++) {
      await submit(
        test.engine,
        commandDraft(ALICE, 1, epoch, request, 'kv.put', { key: `k${request}`, value: 'v' }),
      );
    }
    await submit(test.engine, commandDraft(ALICE, 1, epoch, 4, 'kv.refuse', {}));
    // A command of a client without a session is answered by an EVICTION.
    await submit(test.engine, commandDraft(BOB, 1, 1, 1, 'kv.put', { key: 'b', value: 'v' }));

    expect(
      await valueOf(metrics, 'once_commits_total', { operation: 'command', status: 'OK' }),
    ).toBe(3);
    expect(
      await valueOf(metrics, 'once_commits_total', { operation: 'command', status: 'REFUSED' }),
    ).toBe(1);
    expect(
      await valueOf(metrics, 'once_commits_total', { operation: 'command', status: 'EVICTION' }),
    ).toBe(1);
    expect(
      await valueOf(metrics, 'once_commits_total', { operation: 'register', status: 'OK' }),
    ).toBe(1);
    expect(await valueOf(metrics, 'once_commit_op')).toBe(test.engine.commitOp);
    expect(await valueOf(metrics, 'once_journal_last_op')).toBe(test.node.journal.lastOp);
    expect(await valueOf(metrics, 'once_sessions')).toBe(1);
    expect(await valueOf(metrics, 'once_journal_queue_entries')).toBe(0);
    expect(await valueOf(metrics, 'once_ready')).toBe(1);
    expect(await valueOf(metrics, 'once_phase', { phase: 'ready' })).toBe(1);
    expect(await valueOf(metrics, 'once_phase', { phase: 'replaying' })).toBe(0);
    expect(await valueOf(metrics, 'once_journal_disk_bytes')).toBeGreaterThan(0);
  });

  it('counts the Idempotency-Keys of HTTP requests held, and those forgotten early at the bound', async () => {
    const request = (key: string) => ({
      scope: 'user 1|POST /kv',
      key,
      fingerprint: Buffer.alloc(16, 1),
      userId: 1,
      pattern: 'kv.put',
      data: { key, value: 'v' },
      status: 201,
      refusalStatus: 422,
    });
    expect(await valueOf(metrics, 'once_http_keys')).toBe(0);
    expect((await test.engine.submitHttp(request('a'))).kind).toBe('applied');
    expect(await valueOf(metrics, 'once_http_keys')).toBe(1);
    expect(await valueOf(metrics, 'once_http_requests_in_flight')).toBe(0);
    expect(await valueOf(metrics, 'once_http_keys_forgotten_early_total')).toBe(0);

    // httpKeysMax is 1: a second key forgets the first early.
    expect((await test.engine.submitHttp(request('b'))).kind).toBe('applied');
    expect(await valueOf(metrics, 'once_http_keys')).toBe(1);
    expect(await valueOf(metrics, 'once_http_keys_forgotten_early_total')).toBe(1);
  });

  it('counts the sessions applied entries end, by reason', async () => {
    const aliceEpoch = await register(test.engine, ALICE);
    // clientsMax is 1: BOB's REGISTER evicts ALICE.
    const bobEpoch = await register(test.engine, BOB);
    await submit(test.engine, logoutDraft(BOB, 1, bobEpoch, 1));

    expect(aliceEpoch).toBeGreaterThan(0);
    expect(await valueOf(metrics, 'once_evictions_total', { reason: 'EVICTED' })).toBe(1);
    expect(await valueOf(metrics, 'once_evictions_total', { reason: 'LOGGED_OUT' })).toBe(1);
    expect(await valueOf(metrics, 'once_sessions')).toBe(0);
  });

  it('observes every synced batch the node writes after attaching: its entries and its write time', async () => {
    const before = test.node.journal.writeStats;
    const epoch = await register(test.engine, ALICE);
    const puts = Array.from({ length: 4 }, (_, index) =>
      submit(
        test.engine,
        commandDraft(ALICE, 1, epoch, index + 1, 'kv.put', { key: `k${index}`, value: 'v' }),
      ),
    );
    await Promise.all(puts);
    const after = test.node.journal.writeStats;

    const batches = after.batches - before.batches;
    expect(await seriesOf(metrics, 'once_journal_batch_entries', '_count')).toBe(batches);
    expect(await seriesOf(metrics, 'once_journal_batch_entries', '_sum')).toBe(
      after.entries - before.entries,
    );
    expect(await seriesOf(metrics, 'once_journal_write_seconds', '_count')).toBe(batches);
  });

  it('reports the snapshot op and the ops applied since', async () => {
    await register(test.engine, ALICE);
    await test.engine.takeSnapshot();
    const snapshotOp = test.engine.commitOp;
    const epoch = test.engine.table.get(ALICE)!.epoch;
    await submit(test.engine, commandDraft(ALICE, 1, epoch, 1, 'kv.put', { key: 'k', value: 'v' }));

    expect(await valueOf(metrics, 'once_snapshot_op')).toBe(snapshotOp);
    expect(await valueOf(metrics, 'once_snapshot_age_ops')).toBe(test.engine.commitOp - snapshotOp);
  });

  it("reports the snapshot's age in seconds by the journal time of its op, 0 before any", async () => {
    expect(await valueOf(metrics, 'once_snapshot_age_seconds')).toBe(0);
    await register(test.engine, ALICE);
    await test.engine.takeSnapshot();
    const [snapshotEntry] = await firstBatchFrom(test.node.journal, test.engine.lastSnapshotOp);

    const scrapedAfterMs = Date.now();
    const age = await valueOf(metrics, 'once_snapshot_age_seconds');
    const upperBound = (Date.now() - Number(snapshotEntry.timestamp / 1_000_000n)) / 1000;

    expect(test.engine.lastSnapshotTimestamp).toBe(snapshotEntry.timestamp);
    expect(age).toBeLessThanOrEqual(upperBound + 0.001);
    expect(age).toBeGreaterThanOrEqual(
      (scrapedAfterMs - Number(snapshotEntry.timestamp / 1_000_000n)) / 1000 - 0.001,
    );
  });

  it('given an attached node, when the main thread blocks, then the next scrape reports a longer event loop delay', async () => {
    const scrape = async () => {
      const text = await metrics.metrics();
      const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
      return {
        max: read('once_event_loop_delay_max_seconds'),
        p99: read('once_event_loop_delay_p99_seconds'),
        peak: read('once_event_loop_delay_peak_seconds'),
        onCpu: read('once_event_loop_delay_max_on_cpu_seconds'),
      };
    };
    const before = await scrape();
    for (const value of Object.values(before)) expect(value).toBeGreaterThanOrEqual(0);

    // Longer than any delay seen since the node was attached, whatever the machine's load.
    spinMainThread(before.peak * 1000 + 100);
    let after = before;
    await eventually(async () => {
      after = await scrape();
      return after.peak > before.peak;
    }, 'a scrape after the blocked turn');

    expect(after.max).toBeGreaterThan(before.peak);
    expect(after.peak).toBeGreaterThanOrEqual(after.max);
    expect(after.p99).toBeGreaterThanOrEqual(0);
    expect(after.onCpu).toBeGreaterThan(0);
    expect(after.onCpu).toBeLessThanOrEqual(after.max);
  });

  it('exports no cluster metric for a single node, and no connection without a gateway', async () => {
    expect(await valueOf(metrics, 'once_connections')).toBe(0);
    expect(metrics.registry.getSingleMetric('once_cluster_apply_lag_ops')).toBeUndefined();
    expect(await metrics.metrics()).not.toMatch(/^once_cluster_/m);
  });

  it('reads the gateway and cluster views it is given', async () => {
    metrics.attach({
      ...sourceOf(test.node),
      gateway: () => ({ connectionCount: 3, requestsInFlight: 2 }),
      cluster: {
        view: { node: 'n1', role: 'follower', leader: '127.0.0.1:7701' },
        streamOp: test.engine.commitOp + 5,
      },
    });
    expect(await valueOf(metrics, 'once_connections')).toBe(3);
    expect(await valueOf(metrics, 'once_requests_in_flight')).toBe(2);
    expect(await valueOf(metrics, 'once_cluster_role', { role: 'follower' })).toBe(1);
    expect(await valueOf(metrics, 'once_cluster_role', { role: 'leader' })).toBe(0);
    expect(await valueOf(metrics, 'once_cluster_leader_known')).toBe(1);
    expect(await valueOf(metrics, 'once_cluster_apply_lag_ops')).toBe(5);
  });
});

describe('OnceMetrics registries', () => {
  it('registers in a registry of its own by default, which merges with a team registry', async () => {
    const metrics = new OnceMetrics();
    const team = new Registry();
    team.registerMetric(
      new Counter({
        name: 'team_orders_total',
        help: 'orders',
        registers: [],
      }),
    );
    const merged = Registry.merge([team, metrics.registry]);
    const text = await merged.metrics();
    expect(text).toMatch(/^# TYPE team_orders_total counter$/m);
    expect(text).toMatch(/^# TYPE once_commits_total counter$/m);
    // Unattached: no node is read, no event was counted.
    expect(text).toMatch(/^once_commit_op 0$/m);
    expect(text).not.toMatch(/^once_commits_total\{/m);
  });

  it('registers in the registry it is given', async () => {
    const registry = new Registry();
    new OnceMetrics({ registry });
    expect(registry.getSingleMetric('once_commits_total')).toBeDefined();
    expect(
      (await registry.metrics()).split('\n').filter((line) => line.startsWith('# TYPE once_')),
    ).not.toHaveLength(0);
  });
});

/** The entries of the journal's first read batch from `op`. */
async function firstBatchFrom(journal: JournalStore, op: number): Promise<JournalEntry[]> {
  for await (const batch of journal.readBatches(op, 1)) return batch;
  throw new Error(`op ${op} is not in the journal`);
}
