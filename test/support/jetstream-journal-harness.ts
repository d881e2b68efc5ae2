import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { JetStreamJournal } from '@once/cluster/internal';
import { type JetStreamJournalOptions } from '@once/cluster';
import { type NatsCluster, TcpProxy, eventually } from '@once/testing';
import { type JournalPortHarness, type WriteHold, portDraft } from './journal-port-suite';
import { TEST_KEYRING } from './test-cluster-key';

type Connection = Awaited<ReturnType<typeof connect>>;

/** A cluster name no other test uses, so each gets its own stream and bucket. */
export function freshClusterName(): string {
  return `t${randomBytes(6).toString('hex')}`;
}

/** Connections a test opened, closed together at its end. */
export class Connections {
  readonly #open: Connection[] = [];

  async to(servers: string | string[]): Promise<Connection> {
    const connection = await connect({
      servers,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 100,
    });
    this.#open.push(connection);
    return connection;
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled(this.#open.splice(0).map((connection) => connection.close()));
  }
}

/**
 * The conformance harness for {@link JetStreamJournal} on a running
 * {@link NatsCluster}: each harness its own cluster name (stream, bucket),
 * the journal's connection through a {@link TcpProxy} to the first server, so
 * a test can hold the stream's acks on their way back; and a real second
 * writer to break the journal's writes (the stream then refuses the next
 * publish).
 */
export async function jetStreamHarness(
  cluster: NatsCluster,
  options: Partial<JetStreamJournalOptions> = {},
): Promise<JournalPortHarness<JetStreamJournal>> {
  const clusterName = freshClusterName();
  const connections = new Connections();
  const firstPort = Number(new URL(cluster.urls[0]).port);
  const proxy = await TcpProxy.start({ targetPort: firstPort });
  const open = async (connection: Connection) =>
    JetStreamJournal.open({
      connection,
      clusterName,
      replicas: 3,
      keyring: TEST_KEYRING,
      ...options,
    });
  return {
    open: async () => open(await connections.to(`nats://127.0.0.1:${proxy.port}`)),
    breakWrites: async () => {
      const rival = await open(await connections.to(cluster.urls));
      rival.enqueue(portDraft(1_000_000));
      await eventually(() => rival.pendingCount === 0, 'the rival writer appended', 30_000);
      await rival.close();
    },
    holdWrites: (): Promise<WriteHold> => {
      proxy.setMode('toClient', 'hold');
      return Promise.resolve({
        reached: () =>
          eventually(() => proxy.heldBytes('toClient') > 0, 'an answer held in the proxy', 30_000),
        release: () => {
          proxy.setMode('toClient', 'forward');
          return Promise.resolve();
        },
      });
    },
    cleanup: async () => {
      await connections.closeAll();
      await proxy.close();
    },
  };
}
