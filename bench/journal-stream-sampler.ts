import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { JournalHeader } from '@once/cluster/internal';
import { clusterNames } from '@once/cluster';
import { sleep } from './sleep';

/** The journal stream's last message at one moment. */
export interface StreamSample {
  readonly atEpochMs: number;
  /** Its stream sequence: messages stored so far. */
  readonly seq: number;
  /** Its last op: entries stored so far. */
  readonly lastOp: number;
  /** Entries and payload bytes of that one message. */
  readonly entries: number;
  readonly payloadBytes: number;
}

/** How the leader grouped its entries into messages during a window. */
export interface StreamGroups {
  /** Messages and entries the stream gained between the first and last sample inside the window. */
  readonly messages: number;
  readonly entries: number;
  /** `entries / messages`: the leader's average group. */
  readonly entriesPerMessage: number;
  /** Mean payload bytes per entry over the sampled messages (entry encodings, no framing). */
  readonly entryBytes: number;
  /** The samples' span, ms (about the window's length). */
  readonly spanMs: number;
  readonly samples: number;
}

/**
 * Reads the end of a cluster's journal stream every `intervalMs` while a
 * load runs: from the last message's sequence and its `Once-Last-Op` header,
 * how many messages and entries the leader appended in the load's window,
 * hence its average group; from the sampled messages, the bytes of an entry.
 * One point read per sample (the stream leader answers it), nothing decoded.
 */
export class JournalStreamSampler {
  private readonly samples: StreamSample[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  private constructor(
    private readonly connection: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly subject: string,
    intervalMs: number,
  ) {
    this.loop = this.sampleEvery(intervalMs);
  }

  static async start(
    servers: readonly string[],
    clusterName: string,
    intervalMs: number,
  ): Promise<JournalStreamSampler> {
    const connection = await connect({ servers: [...servers], name: 'once-bench-sampler' });
    const names = clusterNames(clusterName);
    return new JournalStreamSampler(
      connection,
      await jetstreamManager(connection),
      names.stream,
      names.subject,
      intervalMs,
    );
  }

  /** Stops sampling and closes the connection; resolves with every sample. */
  async finish(): Promise<StreamSample[]> {
    this.running = false;
    await this.loop;
    await this.connection.close();
    return this.samples;
  }

  private async sampleEvery(intervalMs: number): Promise<void> {
    while (this.running) {
      // A read that fails (a slow answer under load) is only a missing sample.
      const last = await this.jsm.streams
        .getMessage(this.stream, { last_by_subj: this.subject })
        .catch(() => null);
      if (last !== null) {
        const firstOp = Number(last.header?.get(JournalHeader.firstOp));
        const lastOp = Number(last.header?.get(JournalHeader.lastOp));
        this.samples.push({
          atEpochMs: Date.now(),
          seq: last.seq,
          lastOp,
          entries: lastOp - firstOp + 1,
          payloadBytes: last.data.byteLength,
        });
      }
      await sleep(intervalMs);
    }
  }
}

/**
 * The groups of the window [`startEpochMs`, `endEpochMs`): the growth of the
 * stream between the first and the last sample inside it.
 */
export function streamGroupsIn(
  samples: readonly StreamSample[],
  startEpochMs: number,
  endEpochMs: number,
): StreamGroups {
  const inside = samples.filter(
    (sample) => sample.atEpochMs >= startEpochMs && sample.atEpochMs < endEpochMs,
  );
  if (inside.length < 2) {
    throw new Error(`${inside.length} journal stream samples inside the window; 2 at least needed`);
  }
  const first = inside[0];
  const last = inside[inside.length - 1];
  const messages = last.seq - first.seq;
  const entries = last.lastOp - first.lastOp;
  if (messages <= 0) throw new Error('the journal stream did not grow during the window');
  const sampled = inside.reduce(
    (sum, sample) => ({
      entries: sum.entries + sample.entries,
      bytes: sum.bytes + sample.payloadBytes,
    }),
    { entries: 0, bytes: 0 },
  );
  return {
    messages,
    entries,
    entriesPerMessage: entries / messages,
    entryBytes: sampled.bytes / sampled.entries,
    spanMs: last.atEpochMs - first.atEpochMs,
    samples: inside.length,
  };
}
