import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { clusterNames } from '@once/cluster';
import { type OnceCluster, eventually } from '@once/testing';

/** One writer's unbroken run of messages in the cluster's stream. */
export interface WriterRun {
  /** The writer's id: the part of `Nats-Msg-Id` before the op (one per leader term). */
  readonly writer: string;
  readonly firstSeq: number;
  readonly lastSeq: number;
}

/**
 * A NATS connection of the test itself, beside the nodes', to look at the
 * cluster's stream as JetStream holds it: who leads it, and who wrote what.
 */
export class ClusterStream {
  private constructor(
    private readonly cluster: OnceCluster,
    private readonly connection: NatsConnection,
    readonly name: string,
  ) {}

  static async open(cluster: OnceCluster, clusterName = 'once'): Promise<ClusterStream> {
    const connection = await connect({
      servers: cluster.nats.urls,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 100,
    });
    return new ClusterStream(cluster, connection, clusterNames(clusterName).stream);
  }

  /**
   * The index (in `cluster.nats`) of the server leading the stream, once one
   * does (and, with `everyReplicaCurrent`, every other replica is online and
   * caught up); waits up to `timeoutMs`.
   */
  async leader(everyReplicaCurrent = true, timeoutMs = 30_000): Promise<number> {
    // No API check up front: right after a server is killed that request can
    // time out (the JetStream API is electing its leaders, or this connection
    // is reconnecting), and it would fail the wait instead of being retried
    // like the stream lookups below.
    const jsm = await jetstreamManager(this.connection, { checkAPI: false });
    let found = -1;
    await eventually(
      async () => {
        const info = await jsm.streams.info(this.name).catch(() => undefined);
        const cluster = info?.cluster;
        if (!cluster?.leader) return false;
        const replicas = cluster.replicas ?? [];
        if (everyReplicaCurrent && !replicas.every((replica) => replica.current)) return false;
        found = this.cluster.nats.names.indexOf(cluster.leader);
        return found >= 0;
      },
      `a leader of stream ${this.name}${everyReplicaCurrent ? ' with every replica current' : ''}`,
      timeoutMs,
    );
    return found;
  }

  /**
   * The indexes (in `cluster.nats`) of the servers holding the stream's
   * live consumers (a pull waiting: a node's read that goes on), one per
   * consumer. A read that ended leaves its consumer behind for a few minutes
   * with no pull waiting; a consumer whose server is gone reports no server.
   */
  async consumerHosts(): Promise<number[]> {
    const jsm = await jetstreamManager(this.connection);
    const hosts: number[] = [];
    for (const consumer of await jsm.consumers.list(this.name).next()) {
      const host = this.cluster.nats.names.indexOf(consumer.cluster?.leader ?? '');
      if (host >= 0 && consumer.num_waiting > 0) hosts.push(host);
    }
    return hosts;
  }

  /**
   * Every message of the stream in sequence order, grouped into runs of one
   * writer. A leader writes under one writer id per term, so a writer that
   * appears in two runs appended after another leader had begun.
   */
  async writerRuns(): Promise<WriterRun[]> {
    const jsm = await jetstreamManager(this.connection);
    const last = (await jsm.streams.info(this.name)).state.last_seq;
    const runs: Array<{ writer: string; firstSeq: number; lastSeq: number }> = [];
    if (last === 0) return runs;
    const consumer = await jetstream(this.connection).consumers.get(this.name, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: 1,
    });
    const messages = await consumer.consume({ max_messages: 256 });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void messages.close();
        reject(new Error(`the stream was not read to sequence ${last} within 30 s`));
      }, 30_000);
    });
    const read = (async () => {
      for await (const message of messages) {
        const id = message.headers?.get('Nats-Msg-Id') ?? '';
        const writer = id.slice(0, id.lastIndexOf(':'));
        const run = runs.at(-1);
        if (run?.writer === writer) run.lastSeq = message.seq;
        else runs.push({ writer, firstSeq: message.seq, lastSeq: message.seq });
        if (message.seq >= last) break;
      }
    })();
    try {
      await Promise.race([read, timeout]);
    } finally {
      clearTimeout(timer);
      await messages.close();
    }
    return runs;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
