import { join } from 'node:path';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AppliedTally } from './applied-tally';
import { type OnceMetricsSource } from './metrics-source';
import { DiskUsage } from './disk-usage';
import { EventLoopStalls } from './event-loop-stalls';

/** Options of {@link OnceMetrics}. */
export interface OnceMetricsOptions {
  /**
   * The registry the metrics are registered in. Default: a registry of
   * their own, so a team merges it into its own explicitly (see
   * `Registry.merge`) and nothing lands in prom-client's global one.
   */
  readonly registry?: Registry;
  /** The node to read; can also be given later with {@link OnceMetrics.attach}. */
  readonly source?: OnceMetricsSource;
}

const ENGINE_PHASES = [
  'created',
  'replaying',
  'settling',
  'ready',
  'stopping',
  'stopped',
  'failed',
];
const CLUSTER_ROLES = ['leader', 'follower', 'none'];
/** Entries per synced batch: powers of two up to the largest groups seen under load. */
const BATCH_ENTRY_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
/** One batch write, in seconds: from a page-cache write to a slow disk's fsync. */
const WRITE_SECONDS_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];

/** Admission to reply, in seconds: a fsync or two when idle, a queue's wait under load. */
const REPLY_SECONDS_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

/**
 * The node's metrics in Prometheus form, every name prefixed `once_`.
 *
 * Most of them are gauges read when Prometheus scrapes (prom-client's
 * `collect`), so a node that is never scraped pays nothing for them. Three
 * things are counted as they happen, because they cannot be read back later:
 * applied outcomes (one map increment per entry, see {@link AppliedTally}),
 * replies (one histogram observation per COMMAND or LOGOUT, once the module
 * wires the gateway's `onReplyLatency`) and synced batch writes (one
 * observation each per batch, not per entry). The "Metrics" table of
 * docs/operating/metrics-and-health.md lists each metric.
 */
export class OnceMetrics {
  readonly registry: Registry;
  private source: OnceMetricsSource | undefined;
  private tally = new AppliedTally();
  private detachFns: Array<() => void> = [];
  private readonly diskUsage = new DiskUsage();
  private readonly stalls = new EventLoopStalls();
  private readonly batchEntries: Histogram;
  private readonly writeSeconds: Histogram;
  private readonly replySeconds: Histogram;
  private clusterGauges = false;

  constructor(options: OnceMetricsOptions = {}) {
    this.registry = options.registry ?? new Registry();
    const registers = [this.registry];
    // Each collect reads `self`, the instance, through a closure: prom-client
    // calls it with the metric as `this`.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    const gauge = this.gauge.bind(this);

    new Counter({
      name: 'once_commits_total',
      help: 'Client requests committed and answered (COMMAND, LOGOUT, REGISTER), by operation and reply status (REFUSED: a committed refusal)',
      labelNames: ['operation', 'status'],
      registers,
      collect() {
        this.reset();
        for (const [operation, status, count] of self.tally.commitRows()) {
          this.inc({ operation, status }, count);
        }
      },
    });
    new Counter({
      name: 'once_evictions_total',
      help: 'Sessions ended by an applied entry, by reason (EVICTED: the table was full, LOGGED_OUT, EXPIRED)',
      labelNames: ['reason'],
      registers,
      collect() {
        this.reset();
        for (const [reason, count] of self.tally.evictionRows()) this.inc({ reason }, count);
      },
    });
    new Counter({
      name: 'once_http_keys_forgotten_early_total',
      help: 'Idempotency-Keys of HTTP requests forgotten before their retention ended, because ONCE_HTTP_KEYS_MAX was reached (a retry of one applies again)',
      registers,
      collect() {
        this.reset();
        const source = self.source;
        if (source !== undefined) this.inc(source.engine.httpEarlyForgets);
      },
    });
    this.batchEntries = new Histogram({
      name: 'once_journal_batch_entries',
      help: 'Entries per synced journal batch (the group commit size)',
      buckets: BATCH_ENTRY_BUCKETS,
      registers,
    });
    this.writeSeconds = new Histogram({
      name: 'once_journal_write_seconds',
      help: 'Duration of one journal batch write, fsync included when writes are synced',
      buckets: WRITE_SECONDS_BUCKETS,
      registers,
    });

    this.replySeconds = new Histogram({
      name: 'once_reply_latency_seconds',
      help: "COMMAND and LOGOUT requests, from the gateway's admission to the reply written",
      buckets: REPLY_SECONDS_BUCKETS,
      registers,
    });

    this.registerEventLoopGauges();

    gauge('once_ready', '1 while the node serves (replay done, boot settled)', (s, m) =>
      m.set(s.engine.ready ? 1 : 0),
    );
    gauge(
      'once_phase',
      "The engine's phase: 1 for the current one",
      (s, m) => {
        for (const phase of ENGINE_PHASES) m.set({ phase }, s.engine.phase === phase ? 1 : 0);
      },
      ['phase'],
    );
    gauge('once_commit_op', 'Highest op applied', (s, m) => m.set(s.engine.commitOp));
    gauge(
      'once_journal_last_op',
      'Highest op in the local journal (its entry may still be syncing)',
      (s, m) => m.set(s.journal.lastOp),
    );
    gauge(
      'once_journal_queue_entries',
      'Entries submitted to the journal and not applied yet',
      (s, m) => m.set(s.engine.journal.pendingCount),
    );
    gauge(
      'once_journal_disk_bytes',
      'Bytes of the LevelDB files of the data directory',
      async (s, m) => {
        const bytes = await self.diskUsage.of(join(s.journal.dir, 'leveldb'));
        if (bytes !== undefined) m.set(bytes);
      },
    );
    gauge('once_sessions', 'Sessions in the client table', (s, m) => m.set(s.engine.table.size));
    gauge(
      'once_http_keys',
      'Idempotency-Keys of HTTP requests held (answered, within their retention)',
      (s, m) => m.set(s.engine.httpKeyCount),
    );
    gauge(
      'once_http_requests_in_flight',
      'HTTP requests with an Idempotency-Key journaled by this node and not applied yet',
      (s, m) => m.set(s.engine.httpInFlightCount),
    );
    gauge(
      'once_snapshot_op',
      'Op of the newest snapshot this node took or restored (0: none)',
      (s, m) => m.set(s.engine.lastSnapshotOp),
    );
    gauge(
      'once_snapshot_age_ops',
      'Ops applied since the newest snapshot (what a restart would replay)',
      (s, m) => m.set(Math.max(0, s.engine.commitOp - s.engine.lastSnapshotOp)),
    );
    gauge(
      'once_snapshot_age_seconds',
      "Seconds since the newest snapshot's op was journaled (0 while there is no snapshot)",
      (s, m) => {
        const takenNs = s.engine.lastSnapshotTimestamp;
        if (takenNs > 0n) m.set(Math.max(0, Date.now() / 1000 - Number(takenNs) / 1e9));
      },
    );
    gauge(
      'once_replay_applied_entries',
      'Entries the boot replay applied (its latest report)',
      (s, m) => {
        const progress = s.replayProgress?.();
        if (progress !== undefined) m.set(progress.appliedEntries);
      },
    );
    gauge(
      'once_replay_total_entries',
      'Entries the boot replay has to apply after its snapshot',
      (s, m) => {
        const progress = s.replayProgress?.();
        if (progress !== undefined) m.set(progress.totalEntries);
      },
    );
    gauge('once_connections', 'Open client connections of the gateway', (s, m) => {
      const gateway = s.gateway?.();
      if (gateway !== undefined) m.set(gateway.connectionCount);
    });
    gauge(
      'once_requests_in_flight',
      'COMMAND and LOGOUT requests admitted and not applied yet',
      (s, m) => {
        const gateway = s.gateway?.();
        if (gateway !== undefined) m.set(gateway.requestsInFlight);
      },
    );
    if (options.source !== undefined) this.attach(options.source);
  }

  /**
   * A gauge whose value `read` sets from the attached node at each scrape
   * (nothing is reported for a labelled gauge before a node is attached,
   * an unlabelled one reads 0).
   */
  private gauge(
    name: string,
    help: string,
    read: (source: OnceMetricsSource, metric: Gauge) => void | Promise<void>,
    labelNames: string[] = [],
  ): Gauge {
    // prom-client calls `collect` with the metric as `this`.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const metrics = this;
    return new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        const source = metrics.source;
        if (source !== undefined) return read(source, this);
      },
    });
  }

  /**
   * The event loop's delays while a node is attached ({@link EventLoopStalls}):
   * the longest, the 99th percentile and the longest in CPU time since the
   * previous scrape, and the longest since the node was attached. The first gauge's collect takes the
   * window and sets all three (prom-client collects in registration order),
   * so one scrape reads one window; with two scrapers, each sees the delays
   * since the other's scrape, the peak stays whole.
   */
  private registerEventLoopGauges(): void {
    const registers = [this.registry];
    const p99 = new Gauge({
      name: 'once_event_loop_delay_p99_seconds',
      help: '99th percentile of the event loop delay since the previous scrape (sampled every 10 ms)',
      registers: [],
    });
    const onCpu = new Gauge({
      name: 'once_event_loop_delay_max_on_cpu_seconds',
      help: "The longest event loop delay since the previous scrape counted in the main thread's CPU time (Linux; elsewhere the process's): a delay far above it was spent waiting for a CPU (a busy host), not computing",
      registers: [],
    });
    const peak = new Gauge({
      name: 'once_event_loop_delay_peak_seconds',
      help: 'Longest event loop delay since the node opened: the longest the main thread ran without serving',
      registers: [],
    });
    const stalls = this.stalls;
    new Gauge({
      name: 'once_event_loop_delay_max_seconds',
      help: 'Longest event loop delay since the previous scrape: how long the main thread ran without reading, applying or answering a request',
      registers,
      collect() {
        const window = stalls.takeWindow();
        this.set(window.maxMs / 1000);
        p99.set(window.p99Ms / 1000);
        onCpu.set(window.maxOnCpuMs / 1000);
        peak.set(stalls.peakMs / 1000);
      },
    });
    this.registry.registerMetric(p99);
    this.registry.registerMetric(onCpu);
    this.registry.registerMetric(peak);
  }

  /**
   * The cluster gauges, registered when the first cluster node is attached:
   * a single node exports none of them rather than zeros that would read as
   * "no leader known".
   */
  private registerClusterGauges(): void {
    if (this.clusterGauges) return;
    this.clusterGauges = true;
    const gauge = this.gauge.bind(this);
    gauge(
      'once_cluster_role',
      "Cluster mode: this node's role, 1 for the current one",
      (s, m) => {
        const view = s.cluster?.view;
        if (view === undefined) return;
        for (const role of CLUSTER_ROLES) m.set({ role }, view.role === role ? 1 : 0);
      },
      ['role'],
    );
    gauge(
      'once_cluster_leader_known',
      "Cluster mode: 1 when this node knows the leader's address",
      (s, m) => {
        const view = s.cluster?.view;
        if (view !== undefined) m.set(view.leader === null ? 0 : 1);
      },
    );
    gauge(
      'once_cluster_apply_lag_ops',
      'Cluster mode: ops the stream holds (as far as this node knows) that it has not applied',
      (s, m) => {
        const cluster = s.cluster;
        if (cluster !== undefined) m.set(Math.max(0, cluster.streamOp - s.engine.commitOp));
      },
    );
  }

  /** The node metrics read from now on; replaces (and detaches from) the previous one. */
  attach(source: OnceMetricsSource): void {
    this.detach();
    this.source = source;
    if (source.cluster !== undefined) this.registerClusterGauges();
    this.tally = new AppliedTally();
    this.stalls.start();
    const tally = this.tally;
    this.detachFns.push(
      source.engine.onApplied((outcome) => tally.record(outcome)),
      source.journal.onBatchWritten((entryCount, writeMs) => {
        this.batchEntries.observe(entryCount);
        this.writeSeconds.observe(writeMs / 1000);
      }),
    );
  }

  /**
   * Records one request's admission-to-reply latency (in ms); wired to the
   * gateway's `onReplyLatency` by `OnceMetricsModule`, or by hand.
   */
  observeReplyLatency(latencyMs: number): void {
    this.replySeconds.observe(latencyMs / 1000);
  }

  /** Stops listening to the node; its last values stay until the next {@link attach}. */
  detach(): void {
    this.stalls.stop();
    for (const detach of this.detachFns) detach();
    this.detachFns = [];
  }

  /** The node being read, undefined before {@link attach}. */
  get attached(): OnceMetricsSource | undefined {
    return this.source;
  }

  /** The registry's exposition, Prometheus text format. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  /** The `Content-Type` of {@link metrics}. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
