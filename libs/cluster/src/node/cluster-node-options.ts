import { type OnceNodeOptions } from '@once/engine/internal';
import { type NatsSecurityOptions } from '../connection';
import { type JetStreamJournalOptions } from '../journal';

/** Options of `ClusterNode.open`: a node's own options, and where its cluster is. */
export interface ClusterNodeOptions extends OnceNodeOptions {
  /**
   * NATS servers of the cluster (`ONCE_NATS_SERVERS`), `nats://host:port` or
   * `tls://host:port` (TLS required) each. Credentials in them
   * (`nats://user:password@host`, `nats://token@host`) are used, the same in
   * every URL that has some, and never logged.
   */
  readonly natsServers: readonly string[];
  /**
   * How the node authenticates to NATS (user and password, token, nkey or
   * creds) and its TLS (CA, client certificate, server name); see
   * `readNatsSecurity` for the settings. Default: none (plain, anonymous),
   * unless the URLs carry credentials or are `tls://`.
   */
  readonly natsSecurity?: NatsSecurityOptions;
  /**
   * How long the first connection to NATS may take at start, ms
   * (`ONCE_NATS_CONNECT_TIMEOUT_MS`): past it the node stops with
   * `NATS_UNREACHABLE`. A server that requires a client certificate the
   * node lacks closes the TLS connection without a word, so this is also how
   * long that takes to be reported. Default 20 000 ms (the NATS client's).
   */
  readonly natsConnectTimeoutMs?: number;
  /** This node's id (`ONCE_NODE_ID`): unique in the cluster, it names the lease's holder. */
  readonly nodeId: string;
  /** The cluster's name (`ONCE_CLUSTER_NAME`): names the stream and buckets. Default `once`. */
  readonly clusterName?: string;
  /**
   * The file of the cluster key(s) (`ONCE_CLUSTER_KEY_FILE`): one hex key of
   * at least 32 bytes per line, the first signs, all verify (see
   * `readClusterKeyFile`). Every node of the cluster is given the same keys,
   * out of band; NATS never holds them. This or `clusterKeys` is required.
   */
  readonly clusterKeyFile?: string;
  /** The cluster key(s) themselves, instead of a file (embedding, tests); the first signs. */
  readonly clusterKeys?: readonly Uint8Array[];
  /**
   * Stream messages at or below this sequence may carry no MAC: history
   * written before the cluster had a key (`ONCE_CLUSTER_UNSIGNED_THROUGH_SEQ`,
   * see the cluster key guide). Default 0: every message must verify.
   */
  readonly unsignedThroughSeq?: number;
  /** The `host:port` clients should use for this node (`ONCE_ADVERTISE`). Default null (none). */
  readonly advertise?: string | null;
  /** Copies of the stream and buckets JetStream keeps, when this node creates them. Default 3. */
  readonly replicas?: number;
  /**
   * How long a lease lives without renewal, ms: bounds how long a dead
   * leader blocks writes. Default 3000 ms.
   */
  readonly leaseTtlMs?: number;
  /** How often the holder renews the lease and the others read it, ms. Default 1000 ms. */
  readonly leaseRenewIntervalMs?: number;
  /**
   * A new leader's wait to apply everything the stream holds before it
   * serves writes, ms; past it, the node gives the term up and tries again.
   * Default 60 000 ms.
   */
  readonly catchUpTimeoutMs?: number;
  /** Appends' tuning, as `JetStreamJournal` takes it (acknowledgement timeouts, group sizes). */
  readonly stream?: Pick<
    JetStreamJournalOptions,
    | 'ackTimeoutMs'
    | 'settleTimeoutMs'
    | 'duplicateWindowMs'
    | 'groupEntriesMax'
    | 'groupBytesMax'
    | 'groupsInFlightMax'
    | 'leaderWaitMs'
    | 'clock'
  >;
}

export const CATCH_UP_TIMEOUT_MS_DEFAULT = 60_000;
export const NATS_CONNECT_TIMEOUT_MS_DEFAULT = 20_000;
