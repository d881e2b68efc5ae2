import { type KV } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { type NatsConnection } from '@nats-io/nats-core';
import {
  type Engine,
  type EngineLogger,
  type EngineSettings,
  type GenesisCommand,
  GENESIS_SETTINGS,
  type NodeMembership,
  type OnceNodePort,
  type PingClusterView,
  type ReplayProgress,
  SILENT_LOGGER,
  type WriteRole,
  journalStoreOptions,
  nodeEngine,
  replayPhase,
  sameManifest,
  settleManifest,
  validateSettings,
} from '@once/engine/internal';
import { JournalStore } from '@once/journal/internal';
import { type Observable, concat, defer, ignoreElements, lastValueFrom } from 'rxjs';
import { StreamFollower } from '../follower';
import { NodeHeartbeat, heartbeatSealOf } from '../heartbeat';
import { openClusterBucket } from '../lease/cluster-bucket';
import { LEASE_DEFAULTS } from '../lease/lease-options';
import { advertisedCodeOf, nodesBlocking, readLiveNodes } from './code-finalization';
import { JetStreamJournal, JournalGroupUnverifiedError } from '../journal';
import { ClusterKeyError, ClusterKeyring, readClusterKeyFile } from '../key';
import { ClusterLease, type LeaseRole } from '../lease';
import { type LeaseHolder } from '../lease/lease-value';
import { ClusterJournal } from './cluster-journal';
import { type ClusterNodeOptions, NATS_CONNECT_TIMEOUT_MS_DEFAULT } from './cluster-node-options';
import { type LeaderTerm, type TermHost } from './leader-term';
import { natsConnectError } from './nats-connect-error';
import { NatsStatusLog, natsConnectPlan } from '../connection';
import { RoleSwitch } from './role-switch';

/**
 * One node of a cluster: the engine over a {@link ClusterJournal}, the
 * lease that decides who appends, and the follower that copies the stream
 * into the local journal while another node leads.
 *
 * Boot: open the local journal and the stream → replay the local snapshot
 * and journal → follow the stream from the local end (a local tail the
 * stream disagrees with stops the boot, naming the op) → campaign for the
 * lease → ready. A follower serves PING and answers everything else with
 * the leader's address; leading and following are switched by
 * {@link RoleSwitch} as the lease changes hands.
 */
export class ClusterNode implements OnceNodePort, WriteRole, TermHost {
  readonly logger: EngineLogger;
  readonly genesis: readonly GenesisCommand[];
  #follower: StreamFollower | undefined;
  #lease: ClusterLease | undefined;
  #roles: RoleSwitch | undefined;
  #stopped: Promise<void> | undefined;
  #heartbeat: NodeHeartbeat | undefined;
  #bucket: KV | undefined;
  #codeTimer: NodeJS.Timeout | undefined;
  #settlingCode: Promise<void> | undefined;
  /** What the last hold of this code's manifest said, so that it is logged once per change. */
  #codeHeld = '';

  private constructor(
    readonly connection: NatsConnection,
    readonly journal: ClusterJournal,
    readonly engine: Engine,
    readonly options: ClusterNodeOptions,
    /** The cluster key(s): what signs and verifies every group and lease value. */
    readonly keyring: ClusterKeyring,
  ) {
    this.logger = options.logger ?? SILENT_LOGGER;
    this.genesis = options.genesis ?? [];
    engine.setRole(this);
  }

  /** Opens the local journal, connects to NATS and opens the cluster's stream. */
  static async open(options: ClusterNodeOptions): Promise<ClusterNode> {
    // First: a node without its key must not touch the data directory or NATS.
    const keyring = clusterKeyringOf(options);
    // The stream is the authority: the local copy needs no fsync per group
    // (see `syncWrites`); a node that lost its copied tail copies it again.
    const local = await JournalStore.open(options.dataDir, {
      syncWrites: false,
      ...journalStoreOptions(options),
    });
    let connection: NatsConnection | undefined;
    try {
      // Credentials are taken out of the URLs here: the client, its errors
      // and the messages below never hold them.
      const plan = natsConnectPlan(options.natsServers, options.natsSecurity);
      connection = await connect({
        ...plan.options,
        name: `once-${options.nodeId}`,
        timeout: options.natsConnectTimeoutMs ?? NATS_CONNECT_TIMEOUT_MS_DEFAULT,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
      }).catch((error: unknown) => {
        throw natsConnectError(plan, error);
      });
      void new NatsStatusLog(options.logger ?? SILENT_LOGGER, options.nodeId, {
        secrets: plan.secrets,
      }).follow(connection);
      const stream = await JetStreamJournal.open({
        connection,
        clusterName: options.clusterName,
        replicas: options.replicas,
        keyring,
        unsignedThroughSeq: options.unsignedThroughSeq,
        ...options.stream,
      });
      const journal = new ClusterJournal(local, stream, options.nodeId);
      return new ClusterNode(connection, journal, nodeEngine(journal, options), options, keyring);
    } catch (error) {
      await connection?.close().catch(() => undefined);
      await local.close();
      throw error;
    }
  }

  /** The local journal: the node's applied copy of the stream, and its snapshots. */
  get localJournal(): JournalStore {
    return this.journal.local;
  }

  get nodeId(): string {
    return this.options.nodeId;
  }

  get clusterName(): string {
    return this.options.clusterName ?? LEASE_DEFAULTS.clusterName;
  }

  /** The node in its cluster (its id, its cluster's name, its role, the stream's op): itself. */
  get cluster(): NodeMembership {
    return this;
  }

  /** The limits this node journals when it takes over: the options over the genesis defaults. */
  get desiredSettings(): EngineSettings {
    return validateSettings({ ...GENESIS_SETTINGS, ...this.options.settings });
  }

  /** The current term, while this node leads. */
  get term(): LeaderTerm | undefined {
    return this.#roles?.term;
  }

  /**
   * True while this node leads and its takeover settled: the gateway admits
   * writes and reads. The lease is asked each time (a clock check), not only
   * told of expiry by its timer: after an event-loop stall a queued request
   * may run before that timer, and must not be served past the lease.
   */
  get writable(): boolean {
    return this.term?.serving === true && this.#lease?.role().role === 'leader';
  }

  get view(): PingClusterView {
    const node = this.options.nodeId;
    if (this.writable) return { node, role: 'leader', leader: this.options.advertise ?? null };
    const role: LeaseRole = this.#lease?.role() ?? { role: 'none' };
    if (role.role === 'follower') return { node, role: 'follower', leader: role.holder.advertise };
    return { node, role: 'none', leader: null };
  }

  /** Replays the local state, follows the stream, joins the lease; completes once the node serves. */
  boot(): Observable<ReplayProgress> {
    const { engine } = this;
    return concat(
      replayPhase(engine, this.options),
      defer(async () => {
        engine.setPhase('settling');
        engine.attachToJournal();
        await this.follow();
        await this.advertiseCode();
        this.#lease = new ClusterLease({
          connection: this.connection,
          nodeId: this.options.nodeId,
          keyring: this.keyring,
          advertise: this.options.advertise ?? null,
          clusterName: this.options.clusterName,
          replicas: this.options.replicas,
          ttlMs: this.options.leaseTtlMs,
          renewIntervalMs: this.options.leaseRenewIntervalMs,
          logger: this.logger,
          // The lease key expires with the last holder: after the whole
          // cluster stopped, the recorded term keeps terms increasing.
          termFloor: () => this.journal.stream.recordedTerm(),
        });
        // A stop that began while the node booted: it never campaigns.
        if (this.#stopped) this.#lease.retire();
        this.#lease.onChange((role) => {
          if (role.role === 'leader') this.recordTerm(role.holder);
        });
        this.#roles = new RoleSwitch(this, this.#lease);
        // A node that stopped applying (an entry its code cannot apply as it
        // was) must not hold the lease: another node leads meanwhile.
        engine.onPhase((phase) => {
          if (phase === 'failed') void this.#lease?.stop();
        });
        // Nor may one that stopped before the lease started (the follower met
        // a group that does not verify): it stays up to say why, leaderless.
        if (engine.phase !== 'failed') await this.#lease.start();
        this.#codeTimer = setInterval(() => void this.settleCode(), this.renewIntervalMs);
        this.#codeTimer.unref();
        engine.setPhase('ready');
      }).pipe(ignoreElements()),
    );
  }

  /** Boots and resolves once the node serves (as a follower, or as the leader if it won the lease). */
  async start(): Promise<void> {
    await lastValueFrom(this.boot(), { defaultValue: undefined });
  }

  /**
   * Follows the stream from the local journal's end. The local tail is
   * checked against the stream first; a failure to copy later is fatal (the
   * local journal can no longer mirror the stream): the node stops serving.
   */
  async follow(): Promise<StreamFollower> {
    this.#follower = await StreamFollower.start(
      this.journal.stream,
      this.journal.local,
      (error) => {
        if (error instanceof JournalGroupUnverifiedError) {
          this.refuseStream(error);
          return;
        }
        this.logger.error(`following the cluster's stream failed: ${error.message}`);
        this.engine.setPhase('failed');
      },
      {
        onStalled: (copiedOp) =>
          this.logger.warn(
            `${this.nodeId}: the stream read copied nothing past op ${copiedOp} while the stream held more; reading it afresh`,
          ),
      },
    );
    return this.#follower;
  }

  /** True while a follower copies the stream into the local journal (it started, and was not stopped). */
  get following(): boolean {
    return this.#follower !== undefined;
  }

  /** Stops copying the stream (a leader copies its own acknowledgements instead). */
  async unfollow(): Promise<void> {
    const follower = this.#follower;
    this.#follower = undefined;
    await follower?.stop();
  }

  /** The follower's progress: the highest op handed to the local journal. */
  get copiedOp(): number {
    return this.#follower?.copiedOp ?? this.journal.local.lastOp;
  }

  /**
   * Highest op known to be in the cluster's stream without asking it: what
   * this leader's appends were acknowledged for, or what this follower read.
   * `streamOp - engine.commitOp` is the node's apply lag as far as it knows.
   */
  get streamOp(): number {
    const writer = this.journal.writer;
    return Math.max(this.journal.stream.durableOp, writer?.durableOp ?? 0);
  }

  /**
   * A stream message that does not verify under the cluster key: nothing of
   * it is applied; the node stops applying there (health and PING say why,
   * `JOURNAL_GROUP_UNVERIFIED` at its op), and gives up the lease.
   */
  refuseStream(error: JournalGroupUnverifiedError): void {
    this.engine.haltApplying(error.op, error);
  }

  writerFailed(error: Error): void {
    this.#roles?.writerFailed(error);
  }

  /** Records a leadership's term as the cluster's highest (a failure is logged: the key still has it). */
  private recordTerm(holder: LeaseHolder): void {
    this.journal.stream
      .recordTerm(holder)
      .catch((error: unknown) =>
        this.logger.warn(
          `${this.nodeId}: could not record term ${holder.term} in the cluster's config bucket: ${String(error)}`,
        ),
      );
  }

  private get renewIntervalMs(): number {
    return this.options.leaseRenewIntervalMs ?? LEASE_DEFAULTS.renewIntervalMs;
  }

  /**
   * Starts this node's heartbeat, which tells the others what its code
   * provides (its states' versions, its commands), before it may lead.
   */
  private async advertiseCode(): Promise<void> {
    const bucketOptions = {
      connection: this.connection,
      clusterName: this.options.clusterName ?? LEASE_DEFAULTS.clusterName,
      keyring: this.keyring,
      replicas: this.options.replicas ?? LEASE_DEFAULTS.replicas,
      ttlMs: this.options.leaseTtlMs ?? LEASE_DEFAULTS.ttlMs,
      intervalMs: this.renewIntervalMs,
      logger: this.logger,
    };
    this.#heartbeat = new NodeHeartbeat({
      ...bucketOptions,
      nodeId: this.options.nodeId,
      advertise: this.options.advertise ?? null,
      code: advertisedCodeOf(this.engine.applier.support),
    });
    await this.#heartbeat.start();
    this.#bucket = await openClusterBucket({
      ...bucketOptions,
      requestTimeoutMs: this.renewIntervalMs,
    });
  }

  /**
   * While this node leads: when its code differs from the code in force,
   * journals its manifest once every live node's code provides it (rolling
   * upgrades: followers first, the leader last; the version entry lands
   * when the last node came up), unless `upgradeFinalization` holds it.
   * Until then every node applies the versions in force. Runs at each
   * takeover and every lease renewal interval; never rejects.
   */
  settleCode(): Promise<void> {
    this.#settlingCode ??= this.trySettleCode()
      .catch((error: unknown) =>
        this.logger.warn(
          `${this.nodeId}: the new code's versions could not be settled now: ${String(error)}`,
        ),
      )
      .finally(() => (this.#settlingCode = undefined));
    return this.#settlingCode;
  }

  private async trySettleCode(): Promise<void> {
    const { engine } = this;
    if (!this.term || this.term.ended || engine.phase === 'failed' || !this.#bucket) return;
    const code = engine.applier.codeManifest;
    const inForce = engine.applier.manifest;
    if (inForce && sameManifest(code, inForce)) return;
    if (this.options.upgradeFinalization === 'hold') {
      this.holdCode('held by the upgrade finalization setting (hold)');
      return;
    }
    const blocking = nodesBlocking(
      code,
      await readLiveNodes(
        this.#bucket,
        heartbeatSealOf({
          keyring: this.keyring,
          clusterName: this.options.clusterName ?? LEASE_DEFAULTS.clusterName,
        }),
      ),
      this.nodeId,
    );
    if (blocking.length > 0) {
      const who = blocking.map(({ node, reason }) => `${node}: ${reason}`).join('; ');
      this.holdCode(`waiting for every live node to run it (${who})`);
      return;
    }
    if (!this.term || this.term.ended) return;
    this.#codeHeld = '';
    await settleManifest(engine, this.logger);
  }

  private holdCode(why: string): void {
    if (why === this.#codeHeld) return;
    this.#codeHeld = why;
    this.logger.log(
      `${this.nodeId}: this node's code differs from the code in force; its versions take effect later, ${why}`,
    );
  }

  /**
   * Graceful stop: no more claims of the lease and no more role changes;
   * what was admitted commits; a snapshot is written; the journals close;
   * then a held lease is released, so another node takes over without
   * waiting for it to expire.
   */
  stop(options?: { snapshot?: boolean }): Promise<void> {
    this.#stopped ??= this.shutDown(options);
    return this.#stopped;
  }

  private async shutDown(options?: { snapshot?: boolean }): Promise<void> {
    // First: a stopping node must not take the lease (its journal closes below).
    this.#lease?.retire();
    clearInterval(this.#codeTimer);
    await this.#roles?.freeze();
    await this.#settlingCode;
    await this.unfollow();
    await this.engine.stop(options);
    await this.#lease?.stop();
    await this.#heartbeat?.stop();
    await this.connection.close().catch(() => undefined);
  }
}

/** The node's keyring: `clusterKeys` when given, else the key file; throws `ClusterKeyError`. */
function clusterKeyringOf(options: ClusterNodeOptions): ClusterKeyring {
  if (options.clusterKeys !== undefined) return new ClusterKeyring(options.clusterKeys);
  if (options.clusterKeyFile === undefined || options.clusterKeyFile === '') {
    throw new ClusterKeyError(
      'CLUSTER_KEY_MISSING',
      'cluster mode needs the cluster key: set ONCE_CLUSTER_KEY_FILE (--cluster-key-file) to a file holding it, the same on every node (make one with: openssl rand -hex 32 > cluster.key)',
    );
  }
  return readClusterKeyFile(options.clusterKeyFile);
}
