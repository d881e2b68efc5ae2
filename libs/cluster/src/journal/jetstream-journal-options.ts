import { type NatsConnection } from '@nats-io/nats-core';
import { ENTRY_HEADER_BYTES } from '@once/journal/internal';
import { type ClusterKeyring } from '../key';

/** Options of `JetStreamJournal.open`. */
export interface JetStreamJournalOptions {
  /** An open NATS connection. The journal never closes it: its owner does, after `close`. */
  readonly connection: NatsConnection;
  /** The cluster's name (`ONCE_CLUSTER_NAME`): it names the stream and buckets. Default `once`. */
  readonly clusterName?: string;
  /**
   * The cluster key(s) (`ONCE_CLUSTER_KEY_FILE`): every group is signed with
   * the first and must verify under one of them before it is read, and the
   * resume-token secret is derived from the first. Required.
   */
  readonly keyring: ClusterKeyring;
  /**
   * Stream messages at or below this sequence may carry no MAC: the history
   * a build without cluster keys wrote, before the cluster was upgraded
   * (`ONCE_CLUSTER_UNSIGNED_THROUGH_SEQ`). Default 0: every message must verify.
   */
  readonly unsignedThroughSeq?: number;
  /** Copies of the stream and of the config bucket, when this call creates them. Default 3. */
  readonly replicas?: number;
  /**
   * How long one publish waits for its ack, and one JetStream request (stream
   * info, a point read, a bucket write) for its answer. Default 2 000 ms.
   */
  readonly ackTimeoutMs?: number;
  /**
   * How long a group whose publish failed (no ack, no stream leader) is
   * republished before the journal fails stop. It must outlast a stream
   * leader election (5 to 10 s) and, with two ack timeouts, stay within the
   * duplicate window. Default 60 000 ms.
   */
  readonly settleTimeoutMs?: number;
  /**
   * The duplicate window of a stream this call creates, and the least an
   * existing stream must have. Default 120 000 ms.
   */
  readonly duplicateWindowMs?: number;
  /** Entries per message at most. Default 512. */
  readonly groupEntriesMax?: number;
  /**
   * Payload bytes per message at most; lowered to what the server takes
   * (`max_payload`, less room for headers). A single larger entry is refused
   * by `enqueue`. Default 256 KiB.
   */
  readonly groupBytesMax?: number;
  /** Messages published and not yet acknowledged, at most. Default 8. */
  readonly groupsInFlightMax?: number;
  /**
   * How long a request that meets no leader (a stream or bucket just created,
   * an election after a server died) is retried: by `open`, and by a read as
   * it starts. Default 30 000 ms.
   */
  readonly leaderWaitMs?: number;
  /**
   * Now, in ns since the Unix epoch. Default: the wall clock. Timestamps are
   * clamped never to go below the last one in the stream, whatever it returns.
   */
  readonly clock?: () => bigint;
}

/** {@link JetStreamJournalOptions} with every default applied and checked. */
export type ResolvedJetStreamJournalOptions = Required<JetStreamJournalOptions>;

/** Room left in `max_payload` for a message's headers. */
export const HEADER_ROOM_BYTES = 1024;

/** What one journal message carries, given the server's `max_payload`. */
export interface EntryCapacity {
  /** The largest encoded entry: `max_payload` less room for the message's headers. */
  readonly entryBytesMax: number;
  /** The largest entry body: `entryBytesMax` less the entry's own header. */
  readonly bodyBytesMax: number;
}

/**
 * The entry capacity of a journal on servers whose `max_payload` is
 * `maxPayloadBytes`: one entry alone must fit one message (a group of one),
 * with the group's headers (`HEADER_ROOM_BYTES`) and the entry's header
 * (`ENTRY_HEADER_BYTES`) around its body.
 */
export function entryCapacity(maxPayloadBytes: number): EntryCapacity {
  const entryBytesMax = maxPayloadBytes - HEADER_ROOM_BYTES;
  return { entryBytesMax, bodyBytesMax: entryBytesMax - ENTRY_HEADER_BYTES };
}

/** Applies the defaults of {@link JetStreamJournalOptions}; throws a RangeError naming a bad one. */
export function resolveJetStreamJournalOptions(
  options: JetStreamJournalOptions,
  wallClock: () => bigint,
): ResolvedJetStreamJournalOptions {
  const resolved: ResolvedJetStreamJournalOptions = {
    connection: options.connection,
    clusterName: options.clusterName ?? 'once',
    keyring: options.keyring,
    unsignedThroughSeq: options.unsignedThroughSeq ?? 0,
    replicas: options.replicas ?? 3,
    ackTimeoutMs: options.ackTimeoutMs ?? 2_000,
    settleTimeoutMs: options.settleTimeoutMs ?? 60_000,
    duplicateWindowMs: options.duplicateWindowMs ?? 120_000,
    groupEntriesMax: options.groupEntriesMax ?? 512,
    groupBytesMax: options.groupBytesMax ?? 256 * 1024,
    groupsInFlightMax: options.groupsInFlightMax ?? 8,
    leaderWaitMs: options.leaderWaitMs ?? 30_000,
    clock: options.clock ?? wallClock,
  };
  for (const name of [
    'replicas',
    'ackTimeoutMs',
    'settleTimeoutMs',
    'duplicateWindowMs',
    'groupEntriesMax',
    'groupBytesMax',
    'groupsInFlightMax',
    'leaderWaitMs',
  ] as const) {
    const value = resolved[name];
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`${name} must be an integer >= 1: ${value}`);
    }
  }
  if (!Number.isSafeInteger(resolved.unsignedThroughSeq) || resolved.unsignedThroughSeq < 0) {
    throw new RangeError(
      `unsignedThroughSeq must be an integer >= 0: ${resolved.unsignedThroughSeq}`,
    );
  }
  if (resolved.settleTimeoutMs + 2 * resolved.ackTimeoutMs > resolved.duplicateWindowMs) {
    throw new RangeError(
      `settleTimeoutMs + 2 * ackTimeoutMs (${resolved.settleTimeoutMs + 2 * resolved.ackTimeoutMs} ms) must not exceed duplicateWindowMs (${resolved.duplicateWindowMs} ms): a republish after the window could store a group twice`,
    );
  }
  return resolved;
}
