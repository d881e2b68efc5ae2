import { type KV } from '@nats-io/kv';
import { openClusterBucket } from '../lease/cluster-bucket';
import { NodeLog } from '../lease/cluster-logger';
import { describeFailure } from '../lease/kv-failures';
import { checkNodeId } from '../lease/lease-options';
import { Pause } from '../lease/pause';
import { type HeartbeatOptions, resolveHeartbeatOptions } from './heartbeat-options';
import {
  type AdvertisedCode,
  type NodeInfo,
  encodeNodeInfo,
  heartbeatKey,
  heartbeatSealOf,
} from './node-info';

/** Options of {@link NodeHeartbeat}. */
export interface NodeHeartbeatOptions extends HeartbeatOptions {
  /** This node's id (`ONCE_NODE_ID`); the heartbeat is key `node.<id>`. */
  readonly nodeId: string;
  /** The `host:port` clients should use to reach this node. Default null. */
  readonly advertise?: string | null;
  /** What this node's code provides (see {@link NodeInfo.code}). Default: not said. */
  readonly code?: AdvertisedCode;
}

/**
 * This node's heartbeat: key `node.<id>` of the cluster's bucket, written
 * every `intervalMs` with `{ advertise, startedAt }`. The bucket's TTL
 * removes it once the writes stop, which is how the others learn that the
 * node is gone without a goodbye; a graceful `stop` deletes it at once.
 */
export class NodeHeartbeat {
  private readonly options: ReturnType<typeof resolveHeartbeatOptions>;
  private readonly nodeId: string;
  private readonly key: string;
  private readonly info: NodeInfo;
  /** `info` encoded and signed: the same bytes every beat, so made once. */
  private readonly value: Uint8Array;
  private readonly log: NodeLog;
  private readonly pause = new Pause();
  private kv?: KV;
  private revision = 0;
  private lastBeatSentAtMs = -Infinity;
  private running = false;
  private loop?: Promise<void>;
  private stopping?: Promise<void>;

  constructor(options: NodeHeartbeatOptions) {
    checkNodeId(options.nodeId);
    this.options = resolveHeartbeatOptions(options);
    this.nodeId = options.nodeId;
    this.key = heartbeatKey(options.nodeId);
    this.info = {
      advertise: options.advertise ?? null,
      startedAt: Date.now(),
      ...(options.code && { code: options.code }),
    };
    this.value = encodeNodeInfo(this.info, heartbeatSealOf(this.options), this.nodeId);
    this.log = new NodeLog(this.options.logger, this.nodeId, 'the heartbeat key');
  }

  /** What this node's heartbeat says: its address and when this run started. */
  nodeInfo(): NodeInfo {
    return this.info;
  }

  /** Opens the bucket and writes the first heartbeat, then keeps writing until `stop`. */
  async start(): Promise<void> {
    if (this.kv) throw new Error('the heartbeat is already started');
    this.kv = await openClusterBucket(this.options);
    this.running = true;
    const first = this.beat();
    this.loop = first.then(() => this.run()); // a stop waits for the first write too
    await first;
  }

  /**
   * True while a heartbeat sent within the TTL was stored: the others see
   * this node. False means they may have seen it leave, and may be releasing
   * what it held.
   */
  isLive(): boolean {
    return performance.now() < this.lastBeatSentAtMs + this.options.ttlMs;
  }

  /** Stops writing and deletes the key, unless a later run of this node wrote it since. */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    this.running = false;
    this.pause.wake();
    await this.loop;
    if (this.kv && this.revision > 0) {
      try {
        await this.kv.delete(this.key, { previousSeq: this.revision });
      } catch (error) {
        this.log.warn(`could not delete the heartbeat (it expires): ${describeFailure(error)}`);
      }
    }
    this.lastBeatSentAtMs = -Infinity;
  }

  private async run(): Promise<void> {
    while (this.running) {
      await this.pause.for(this.options.intervalMs);
      if (this.running) await this.beat();
    }
  }

  private async beat(): Promise<void> {
    const sentAtMs = performance.now();
    try {
      this.revision = await this.kv!.put(this.key, this.value);
      this.lastBeatSentAtMs = sentAtMs;
      this.log.untroubled();
    } catch (error) {
      this.log.trouble(`heartbeat failed: ${describeFailure(error)}`);
    }
  }
}
