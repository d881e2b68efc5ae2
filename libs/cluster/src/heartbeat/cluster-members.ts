import { type KV, type KvEntry } from '@nats-io/kv';
import { openClusterBucket } from '../lease/cluster-bucket';
import { NodeLog } from '../lease/cluster-logger';
import { describeFailure } from '../lease/kv-failures';
import { Listeners } from '../lease/listeners';
import { Pause } from '../lease/pause';
import { watchKey } from '../lease/watch-key';
import {
  type HeartbeatOptions,
  type ResolvedHeartbeatOptions,
  resolveHeartbeatOptions,
} from './heartbeat-options';
import {
  HEARTBEAT_KEYS,
  type HeartbeatSeal,
  type NodeInfo,
  decodeNodeInfo,
  heartbeatSealOf,
  heartbeatKey,
  nodeIdOfKey,
} from './node-info';

/**
 * Why a node left the live set:
 * - `stopped`: it deleted its heartbeat (a graceful stop);
 * - `expired`: its heartbeat is gone from the bucket (TTL): it stopped writing;
 * - `restarted`: a new run of it wrote its heartbeat (the old run is gone).
 */
export type LeaveReason = 'stopped' | 'expired' | 'restarted';

/** A change of the live set. */
export type MembershipChange =
  | { readonly kind: 'joined'; readonly node: string; readonly info: NodeInfo }
  | {
      readonly kind: 'left';
      readonly node: string;
      readonly info: NodeInfo;
      readonly reason: LeaveReason;
    };

interface Member {
  readonly info: NodeInfo;
  /** When its heartbeat was last seen written. */
  readonly heardAtMs: number;
}

/**
 * The live nodes of the cluster, from their heartbeats: a watch of the
 * `node.*` keys tells of joins, restarts and graceful stops as they happen.
 * An expiry is told to no watcher, so every `intervalMs` the nodes not heard
 * from within the TTL are looked up: a node leaves as `expired` only once the
 * bucket itself no longer holds its heartbeat, never on this node's clock
 * alone (a watcher cut off from NATS sees nobody leave).
 */
export class ClusterMembers {
  private readonly options: ResolvedHeartbeatOptions;
  /** What every heartbeat read is verified with. */
  private readonly seal: HeartbeatSeal;
  private readonly log: NodeLog;
  private readonly members = new Map<string, Member>();
  /** The newest revision seen per node id, so a late or slow answer never undoes a newer one. */
  private readonly revisions = new Map<string, number>();
  private readonly listeners: Listeners<MembershipChange>;
  private readonly pause = new Pause();
  private kv?: KV;
  private running = false;
  private loop?: Promise<void>;
  private stopWatch?: () => void;

  constructor(options: HeartbeatOptions) {
    this.options = resolveHeartbeatOptions(options);
    this.seal = heartbeatSealOf(this.options);
    this.log = new NodeLog(this.options.logger, 'members', 'the heartbeat keys');
    this.listeners = new Listeners((error) =>
      this.log.warn(`a membership listener threw: ${describeFailure(error)}`),
    );
  }

  /** Opens the bucket and starts watching; the live set fills as the watch delivers. */
  async start(): Promise<void> {
    if (this.kv) throw new Error('the members watcher is already started');
    this.kv = await openClusterBucket(this.options);
    this.running = true;
    this.stopWatch = watchKey(this.kv, HEARTBEAT_KEYS, this.options.intervalMs, {
      entry: (entry) => this.observe(entry),
      failure: (error) => this.log.trouble(`the heartbeat watch failed: ${describeFailure(error)}`),
    });
    this.loop = this.run();
  }

  /** The live nodes by id. */
  live(): ReadonlyMap<string, NodeInfo> {
    return new Map([...this.members].map(([node, member]) => [node, member.info]));
  }

  /** Calls `listener` with each join and leave, in order; returns the unsubscribe function. */
  onChange(listener: (change: MembershipChange) => void): () => void {
    return this.listeners.add(listener);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopWatch?.();
    this.pause.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      await this.pause.for(this.options.intervalMs);
      if (this.running) await this.sweep();
    }
  }

  /** Looks up each node not heard from within the TTL: gone from the bucket, it has left. */
  private async sweep(): Promise<void> {
    const silentSinceMs = performance.now() - this.options.ttlMs;
    for (const [node, member] of [...this.members]) {
      if (member.heardAtMs > silentSinceMs || !this.running) continue;
      let entry: KvEntry | null;
      try {
        entry = await this.kv!.get(heartbeatKey(node));
      } catch (error) {
        this.log.trouble(`cannot read the heartbeat of ${node}: ${describeFailure(error)}`);
        return;
      }
      this.log.untroubled();
      if (this.members.get(node) !== member) continue; // the watch told of it meanwhile
      if (entry === null) this.leave(node, 'expired');
      else this.observe(entry);
    }
  }

  /** A heartbeat written, deleted or purged (from the watch or a lookup). */
  private observe(entry: KvEntry): void {
    const node = nodeIdOfKey(entry.key);
    if (node === undefined || entry.revision <= (this.revisions.get(node) ?? 0)) return;
    this.revisions.set(node, entry.revision);
    if (entry.operation !== 'PUT') {
      this.leave(node, 'stopped');
      return;
    }
    const info = decodeNodeInfo(entry.value, this.seal, node);
    if (info === undefined) {
      this.log.warn(
        `the heartbeat of ${node} holds a value this node cannot read or that does not verify under its cluster key`,
      );
      return;
    }
    const known = this.members.get(node);
    if (known && known.info.startedAt !== info.startedAt) this.leave(node, 'restarted');
    this.members.set(node, { info, heardAtMs: performance.now() });
    if (!known || known.info.startedAt !== info.startedAt) {
      this.listeners.emit({ kind: 'joined', node, info });
    }
  }

  private leave(node: string, reason: LeaveReason): void {
    const member = this.members.get(node);
    if (member === undefined) return;
    this.members.delete(node);
    this.listeners.emit({ kind: 'left', node, info: member.info, reason });
  }
}
