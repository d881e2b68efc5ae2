import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runBenchChild } from './bench-children';
import { type BenchContext } from './bench-context';
import { type DurablePeers, type PeerRun } from './durable-peers';
import { type GroupCommitSizes, groupCommitSizes } from './group-commit-sizes';
import { type HttpPeerName, type HttpPeers } from './http-peers';
import { type LevelDbActivity, readLevelDbActivity } from './leveldb-info-log';
import { type LoadReport } from './load-report';
import { type MetricsOnRun, measureOnceWithMetrics } from './metrics-overhead';
import { runLoad } from './load-runner';
import { NestEchoServer } from './nest-echo-server';
import { OnceService, type ReplayReport } from './once-service';
import { type RawBatchReport } from './raw-level-batch';
import { type RawGroupCommitReport } from './raw-level-group-commit';
import { type RawIterateReport } from './raw-level-iterate';
import { type ReplyChecksRuns, measureReplyChecks } from './reply-check-overhead';
import { CHILD_SLACK_MS, describeLatency, runTimedBenchChild } from './throughput-steps';
import { WalRecorder, type WalRecording } from './wal-recorder';

/** Everything one throughput run measured, each figure from its own process. */
export interface ThroughputRun extends ReplyChecksRuns {
  /** Closed loop against the once service. */
  readonly once: LoadReport;
  /** Open loop at half of `once`'s throughput, same service. */
  readonly halfPeak: LoadReport;
  /** A bare group-commit loop over LevelDB at `halfPeak`'s offered rate, right after it. */
  readonly rawGroupCommit: RawGroupCommitReport;
  /** Closed loop against the NestJS TCP echo server. */
  readonly nestTcp: LoadReport;
  /** NestJS TCP + Redis (AOF fsynced per write): closed loop, then open at half its peak. */
  readonly redisPeer: PeerRun;
  /** NestJS TCP + PostgreSQL (synchronous commit): the same. */
  readonly pgPeer: PeerRun;
  /** The HTTP peers, once's included (`POST /ledger/deposit`, keep-alive, a new Idempotency-Key each): the same. */
  readonly httpPeers: Readonly<Record<HttpPeerName, PeerRun>>;
  /** What the service's LevelDB flushed and compacted (whole run; counts inside `halfPeak`'s window). */
  readonly leveldb: LevelDbActivity;
  /** The service's group commits during `once`'s window, from its write-ahead log. */
  readonly groupCommits: GroupCommitSizes & Omit<WalRecording, 'batches'>;
  /** Synced LevelDB batches of the same size, no server. */
  readonly rawBatch: RawBatchReport;
  /** The service's boot replay of this run's journal. */
  readonly replay: ReplayReport;
  /** A bare iterator over the same journal. */
  readonly rawIterate: RawIterateReport;
  /** `--metrics`: the closed loop again with the metrics listener on and scraped. */
  readonly metricsOn?: MetricsOnRun;
}

/**
 * One throughput run: the once service, the NestJS baseline, the durable
 * peers, the HTTP peers and the once service with reply checks on and off measured back to
 * back under the same load shape, the service's journal then replayed and
 * iterated, and the same group commits written to a bare LevelDB. Odd runs
 * start with the peers, NestJS (and, with `--metrics`, the metrics-on closed
 * loop) and reply checks, even runs end with them, so that none always runs
 * first.
 */
export async function measureThroughputRun(
  context: BenchContext,
  index: number,
  peers: DurablePeers,
  httpPeers: HttpPeers,
): Promise<ThroughputRun> {
  let nestTcp: LoadReport | undefined;
  let replyChecks: ReplyChecksRuns | undefined;
  let metricsOn: MetricsOnRun | undefined;
  let redisPeer: PeerRun | undefined;
  let pgPeer: PeerRun | undefined;
  let httpPeerRuns: Record<HttpPeerName, PeerRun> | undefined;
  const withMetrics = context.options.metrics;
  if (index % 2 === 1) {
    pgPeer = await peers.measure('pg', context);
    redisPeer = await peers.measure('redis', context);
    httpPeerRuns = await httpPeers.measureAll(context, index);
    nestTcp = await measureNestTcp(context);
    if (withMetrics) metricsOn = await measureOnceWithMetrics(context, index);
    replyChecks = await measureReplyChecks(context, index);
  }
  const once = await measureOnce(context, index);
  replyChecks ??= await measureReplyChecks(context, index);
  nestTcp ??= await measureNestTcp(context);
  redisPeer ??= await peers.measure('redis', context);
  pgPeer ??= await peers.measure('pg', context);
  httpPeerRuns ??= await httpPeers.measureAll(context, index);
  if (withMetrics) metricsOn ??= await measureOnceWithMetrics(context, index);
  const rawBatch = await runTimedBenchChild<RawBatchReport>(context, 'raw-level-batch', [
    '--dir',
    join(context.workDir, `raw-batch-${index}`),
    '--group-size',
    String(Math.max(1, Math.round(once.groupCommits.avgGroupSize))),
    '--value-bytes',
    String(Math.round(once.groupCommits.meanValueBytes)),
  ]);
  context.log(
    `  raw LevelDB, ${rawBatch.groupSize} × ${rawBatch.valueBytes} B per synced batch: ${Math.round(rawBatch.entriesPerSecond)} entries/s`,
  );
  return {
    ...once,
    ...replyChecks,
    nestTcp,
    redisPeer,
    pgPeer,
    httpPeers: httpPeerRuns,
    rawBatch,
    ...(metricsOn && { metricsOn }),
  };
}

async function measureNestTcp(context: BenchContext): Promise<LoadReport> {
  const server = await NestEchoServer.start(context.build);
  try {
    const report = await runLoad('nest-tcp', server.port, { kind: 'closed' }, context);
    context.log(`  nest-tcp echo: ${Math.round(report.requestsPerSecond)} req/s`);
    return report;
  } finally {
    await server.stop();
  }
}

/**
 * The once side of a run, on a fresh data directory with ONCE_SNAPSHOT_EVERY_OPS=0
 * so that the journal alone holds the state: closed loop, then open loop at
 * half its throughput; SIGKILL (a graceful stop would write a snapshot); boot
 * again on the same directory to read its replay rate; SIGKILL; iterate.
 */
async function measureOnce(
  context: BenchContext,
  index: number,
): Promise<
  Omit<
    ThroughputRun,
    keyof ReplyChecksRuns | 'nestTcp' | 'redisPeer' | 'pgPeer' | 'httpPeers' | 'rawBatch'
  >
> {
  const dataDir = join(context.workDir, `throughput-${index}`, 'data');
  const serviceOptions = {
    build: context.build,
    dataDir,
    adminPassword: context.adminPassword,
    snapshotEveryOps: 0,
  };
  const recorder = WalRecorder.start(join(dataDir, 'leveldb'));
  let recording: WalRecording;
  let once: LoadReport;
  let halfPeak: LoadReport;
  const service = await OnceService.start(serviceOptions);
  try {
    once = await runLoad('once', service.port, { kind: 'closed' }, context);
    context.log(`  once closed loop: ${Math.round(once.requestsPerSecond)} req/s`);
    halfPeak = await runLoad(
      'once',
      service.port,
      { kind: 'open', ratePerSecond: once.requestsPerSecond / 2 },
      context,
    );
    context.log(
      `  once open loop at ${Math.round(once.requestsPerSecond / 2)} req/s: ${describeLatency(halfPeak.latency)}`,
    );
  } finally {
    await service.crash();
    recording = recorder.finish();
  }
  const leveldb = await readLevelDbActivity(join(dataDir, 'leveldb'), {
    startEpochMs: halfPeak.windowStartEpochMs!,
    endEpochMs: halfPeak.windowEndEpochMs!,
  });
  context.log(`  LevelDB: ${describeActivity(leveldb)}`);
  const { batches, ...coverage } = recording;
  const groupCommits = {
    ...groupCommitSizes(batches, once.windowStartEpochMs!, once.windowEndEpochMs!),
    ...coverage,
  };
  if (groupCommits.batches === 0) throw new Error('no journal batch in the write-ahead log');
  context.log(
    `  group commits: ${groupCommits.avgGroupSize.toFixed(1)} entries per synced batch (${groupCommits.batches} batches)`,
  );
  if (coverage.missedLogFiles > 0 || coverage.sequenceGaps > 0) {
    context.log(
      `  warning: ${coverage.missedLogFiles} log files missed, ${coverage.sequenceGaps} sequence gaps: avg_group_size is a sample`,
    );
  }

  const rawGroupCommit = await measureRawGroupCommit(
    context,
    index,
    halfPeak.offeredRatePerSecond ?? once.requestsPerSecond / 2,
    groupCommits.meanValueBytes,
  );

  const rebooted = await OnceService.start(serviceOptions);
  await rebooted.crash();
  const replay = rebooted.replay;
  if (replay.totalEntries === 0) throw new Error('the rebooted service had nothing to replay');
  context.log(`  replay: ${replay.entriesPerSecond} entries/s over ${replay.totalEntries}`);
  const rawIterate = await runBenchChild<RawIterateReport>(
    context.build,
    'raw-level-iterate',
    ['--data-dir', dataDir],
    { timeoutMs: CHILD_SLACK_MS },
  );
  context.log(`  raw iterator: ${Math.round(rawIterate.entriesPerSecond)} entries/s`);
  await rm(join(context.workDir, `throughput-${index}`), { recursive: true, force: true });
  return { once, halfPeak, rawGroupCommit, leveldb, groupCommits, replay, rawIterate };
}

/**
 * The disk's own tail at the open loop's offered rate: bare LevelDB group
 * commit, entries of the journal's stored size, no server. Measured right
 * after the service's open loop, so both see the same machine.
 */
async function measureRawGroupCommit(
  context: BenchContext,
  index: number,
  ratePerSecond: number,
  valueBytes: number,
): Promise<RawGroupCommitReport> {
  const report = await runTimedBenchChild<RawGroupCommitReport>(context, 'raw-level-group-commit', [
    '--dir',
    join(context.workDir, `raw-group-commit-${index}`),
    '--rate-per-second',
    String(Math.max(1, Math.round(ratePerSecond))),
    '--value-bytes',
    String(Math.max(1, Math.round(valueBytes))),
  ]);
  context.log(
    `  raw LevelDB group commit at ${report.ratePerSecond} req/s: ${describeLatency(report.latency)} (${report.meanGroupSize.toFixed(1)} entries per batch); ${describeActivity(report.leveldb)}`,
  );
  return report;
}

function describeActivity(activity: LevelDbActivity): string {
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  const window = activity.inWindow
    ? ` (${activity.inWindow.flushes} flushes, ${activity.inWindow.compactions} compactions in the open-loop window)`
    : '';
  return `flushed ${mb(activity.flushedBytes)} MB, compactions wrote ${mb(activity.compactionBytes)} MB${window}`;
}
