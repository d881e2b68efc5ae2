import { type BenchContext } from './bench-context';
import { type ClusterStand } from './cluster-stand';
import {
  JournalStreamSampler,
  type StreamGroups,
  type StreamSample,
  streamGroupsIn,
} from './journal-stream-sampler';
import { type LoadReport } from './load-report';
import { runLoad } from './load-runner';
import { type NatsServers } from './nats-servers';
import { type RawJetStreamReport } from './raw-jetstream-publish';
import { describeLatency, runTimedBenchChild } from './throughput-steps';

/** One cluster throughput run, each figure from its own process. */
export interface ClusterThroughputRun {
  /** The node that led (`node<n>`). */
  readonly leader: string;
  /** Closed loop against the leader. */
  readonly cluster: LoadReport;
  /** How the leader grouped its entries during `cluster`'s window. */
  readonly groups: StreamGroups;
  /** Bare JetStream publishes of the same groups. */
  readonly rawJetStream: RawJetStreamReport;
}

/**
 * Publishes the once journal keeps awaiting their ack at once: its default
 * `groupsInFlightMax`, which the reference service does not change.
 */
export const JOURNAL_GROUPS_IN_FLIGHT = 8;
const SAMPLE_INTERVAL_MS = 100;

/**
 * One run: the closed loop of the single-node bench against the cluster's
 * leader, the journal stream sampled meanwhile to learn the leader's groups
 * (entries per message, bytes per entry); then the same groups published by
 * a bare JetStream client into a copy of the stream, as many in flight as
 * the journal keeps.
 */
export async function measureClusterRun(
  context: BenchContext,
  nats: NatsServers,
  stand: ClusterStand,
  clusterName: string,
  index: number,
): Promise<ClusterThroughputRun> {
  const leader = await stand.leader();
  const sampler = await JournalStreamSampler.start(nats.urls, clusterName, SAMPLE_INTERVAL_MS);
  let cluster: LoadReport;
  let samples: StreamSample[];
  try {
    cluster = await runLoad('once', stand.port(leader), { kind: 'closed' }, context);
  } finally {
    samples = await sampler.finish();
  }
  const groups = streamGroupsIn(samples, cluster.windowStartEpochMs!, cluster.windowEndEpochMs!);
  context.log(
    `  cluster closed loop on node${leader + 1}: ${Math.round(cluster.requestsPerSecond)} req/s, ${describeLatency(cluster.latency)}; ${groups.entriesPerMessage.toFixed(1)} entries per message of ${Math.round(groups.entryBytes)} B each`,
  );

  const rawJetStream = await runTimedBenchChild<RawJetStreamReport>(
    context,
    'raw-jetstream-publish',
    [
      '--servers',
      nats.urls.join(','),
      '--cluster-name',
      clusterName,
      '--copy-name',
      `${clusterName}-raw-${index}`,
      '--group-entries',
      String(Math.max(1, Math.round(groups.entriesPerMessage))),
      '--entry-bytes',
      String(Math.max(1, Math.round(groups.entryBytes))),
      '--in-flight',
      String(JOURNAL_GROUPS_IN_FLIGHT),
    ],
  );
  context.log(
    `  raw JetStream, ${rawJetStream.groupEntries} × ${rawJetStream.entryBytes} B per message, ${rawJetStream.inFlight} in flight: ${Math.round(rawJetStream.entriesPerSecond)} entries/s`,
  );
  return { leader: `node${leader + 1}`, cluster, groups, rawJetStream };
}
