import { randomBytes } from 'node:crypto';
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { wallClockNs } from '@once/journal/internal';
import { type ClusterNames, clusterNames } from '../cluster-names';
import { AppendPipeline } from './append-pipeline';
import { ClusterConfig, clusterConfigBucket, termRecordSeal } from './cluster-config';
import { GroupAuthenticator } from './group-authenticator';
import { GroupPublisher } from './group-publisher';
import {
  type EntryCapacity,
  type JetStreamJournalOptions,
  entryCapacity,
  resolveJetStreamJournalOptions,
} from './jetstream-journal-options';
import { ensureJournalStream, readJournalStreamEnd } from './journal-stream';
import { StreamReader } from './stream-reader';
import { retryTransient } from './transient-retry';

/** Everything a `JetStreamJournal` is made of, ready to use. */
export interface JetStreamJournalParts {
  readonly names: ClusterNames;
  readonly jsm: JetStreamManager;
  readonly pipeline: AppendPipeline;
  readonly reader: StreamReader;
  readonly config: ClusterConfig;
  readonly clock: () => bigint;
  /** The largest entry, and entry body, a message carries. */
  readonly capacity: EntryCapacity;
  /** The stream's last op and its timestamp, where this writer continues. */
  readonly lastOp: number;
  readonly lastTimestamp: bigint;
}

/**
 * Creates the stream and the config bucket where missing (first node of a
 * cluster), loads the settings, and reads the stream's last message
 * to continue after it. Requests that meet no leader are retried for
 * `leaderWaitMs`. The writer's id, part of each message id, is 8 random bytes
 * drawn here: no two openings share one, so no writer can mistake another's
 * message for its own.
 */
export async function openJetStreamJournalParts(
  options: JetStreamJournalOptions,
): Promise<JetStreamJournalParts> {
  const resolved = resolveJetStreamJournalOptions(options, wallClockNs);
  const names = clusterNames(resolved.clusterName);
  const connection = resolved.connection;
  const deadline = Date.now() + resolved.leaderWaitMs;
  const retry = <T>(request: () => Promise<T>) =>
    retryTransient(request, Math.max(1, deadline - Date.now()));
  // Requests time out like publishes: a creation racing another node's may go
  // unanswered (nats-server 2.9), and is then simply asked again.
  const jsm = await retry(() => jetstreamManager(connection, { timeout: resolved.ackTimeoutMs }));
  await retry(() => ensureJournalStream(jsm, names, resolved.replicas, resolved.duplicateWindowMs));
  const config = await retry(() =>
    ClusterConfig.open(
      jsm.jetstream(),
      clusterConfigBucket(resolved.clusterName),
      resolved.replicas,
      resolved.keyring.resumeSecret(resolved.clusterName),
      termRecordSeal(resolved.keyring, resolved.clusterName),
    ),
  );
  const auth = new GroupAuthenticator(resolved.keyring, names.stream, resolved.unsignedThroughSeq);
  const end = await retry(() => readJournalStreamEnd(jsm, names, auth));
  const js = jsm.jetstream();
  const capacity = entryCapacity(connection.info?.max_payload ?? 1024 * 1024);
  const publisher = new GroupPublisher(
    connection,
    js,
    jsm,
    names.stream,
    names.subject,
    resolved.ackTimeoutMs,
    auth,
  );
  const pipeline = new AppendPipeline(
    publisher,
    randomBytes(8).toString('hex'),
    {
      groupEntriesMax: resolved.groupEntriesMax,
      groupBytesMax: Math.min(resolved.groupBytesMax, capacity.entryBytesMax),
      groupsInFlightMax: resolved.groupsInFlightMax,
      settleTimeoutMs: resolved.settleTimeoutMs,
    },
    end,
  );
  return {
    names,
    jsm,
    pipeline,
    reader: new StreamReader(js, jsm, names, resolved.leaderWaitMs, auth),
    config,
    clock: resolved.clock,
    capacity,
    lastOp: end.lastOp,
    lastTimestamp: end.lastTimestamp,
  };
}
