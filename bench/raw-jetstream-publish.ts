import { randomBytes } from 'node:crypto';
import { type JetStreamClient, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, headers } from '@nats-io/transport-node';
import { JournalHeader, MESSAGE_FORMAT } from '@once/cluster/internal';
import { clusterNames } from '@once/cluster';
import { Command } from 'commander';
import { nonNegativeInteger, positiveInteger } from './cli-numbers';
import { sleep } from './sleep';

/** The JSON line raw-jetstream-publish prints. */
export interface RawJetStreamReport {
  readonly groupEntries: number;
  readonly entryBytes: number;
  readonly inFlight: number;
  /** Messages acknowledged inside the window. */
  readonly messages: number;
  readonly entriesPerSecond: number;
  readonly messagesPerSecond: number;
}

const ACK_TIMEOUT_MS = 2000;
/** A stream just created has no leader for a moment; its first publish is retried this long. */
const FIRST_ACK_WAIT_MS = 30_000;

/**
 * Child entry: the ceiling the cluster's journal is measured against. Bare
 * JetStream publishes, no once node in the way: messages of `--group-entries`
 * entries of `--entry-bytes` each (random bytes, the journal's headers),
 * `--in-flight` awaiting their ack at once, each with a `Nats-Msg-Id` and
 * the stream's expected last sequence and last message id, exactly as the
 * journal's append pipeline publishes its groups. The stream is a copy of
 * the cluster's journal stream (its config, another name and subject),
 * deleted afterwards. Entries acknowledged per second inside the window.
 */
async function main(): Promise<void> {
  const options = new Command()
    .requiredOption('--servers <urls>', 'comma-separated NATS URLs')
    .requiredOption('--cluster-name <name>', 'the once cluster whose journal stream is copied')
    .requiredOption('--copy-name <name>', 'the cluster name the copy is named after')
    .requiredOption('--group-entries <entries>', 'entries per message', positiveInteger)
    .requiredOption('--entry-bytes <bytes>', 'payload bytes per entry', positiveInteger)
    .requiredOption('--in-flight <messages>', 'publishes awaiting their ack', positiveInteger)
    .option('--warmup-ms <ms>', 'warm-up', nonNegativeInteger, 1000)
    .option('--duration-ms <ms>', 'measurement window', positiveInteger, 5000)
    .parse(process.argv)
    .opts<{
      servers: string;
      clusterName: string;
      copyName: string;
      groupEntries: number;
      entryBytes: number;
      inFlight: number;
      warmupMs: number;
      durationMs: number;
    }>();

  const connection = await connect({
    servers: options.servers.split(','),
    name: 'once-bench-raw-jetstream',
  });
  const jsm = await jetstreamManager(connection);
  const source = clusterNames(options.clusterName);
  const copy = clusterNames(options.copyName);
  const { config } = await jsm.streams.info(source.stream);
  await jsm.streams.add({ ...config, name: copy.stream, subjects: [copy.subject] });
  try {
    const publisher = new GroupPublisherLoop(
      jetstream(connection),
      copy.stream,
      copy.subject,
      options.groupEntries,
      randomBytes(options.groupEntries * options.entryBytes),
    );
    await publisher.first();
    const startMs = performance.now() + options.warmupMs;
    const endMs = startMs + options.durationMs;
    let inWindow = 0;
    const worker = async () => {
      for (;;) {
        await publisher.next();
        const now = performance.now();
        if (now >= endMs) return;
        if (now >= startMs) inWindow++;
      }
    };
    await Promise.all(Array.from({ length: options.inFlight }, worker));
    const report: RawJetStreamReport = {
      groupEntries: options.groupEntries,
      entryBytes: options.entryBytes,
      inFlight: options.inFlight,
      messages: inWindow,
      entriesPerSecond: (inWindow * options.groupEntries * 1000) / options.durationMs,
      messagesPerSecond: (inWindow * 1000) / options.durationMs,
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await jsm.streams.delete(copy.stream).catch(() => undefined);
    await connection.close();
  }
}

/**
 * Publishes the same payload again and again as consecutive groups: each
 * publish claims the next stream sequence when it is made, so with several
 * in flight every one expects the sequence and message id of the one made
 * before it, as the journal's pipeline does.
 */
class GroupPublisherLoop {
  private seq = 0;
  private lastMsgId: string | undefined;

  constructor(
    private readonly js: JetStreamClient,
    private readonly stream: string,
    private readonly subject: string,
    private readonly groupEntries: number,
    private readonly payload: Buffer,
  ) {}

  /** The first group, retried (same id, so stored once) until the new stream has a leader. */
  async first(): Promise<void> {
    const deadlineMs = performance.now() + FIRST_ACK_WAIT_MS;
    const seq = ++this.seq;
    for (;;) {
      try {
        await this.publish(seq, undefined);
        this.lastMsgId = this.msgIdOf(seq);
        return;
      } catch (error) {
        if (performance.now() > deadlineMs) throw error;
        await sleep(50);
      }
    }
  }

  /** Publishes the next group; rejects on any failure (the bench then fails). */
  async next(): Promise<void> {
    const seq = ++this.seq;
    const previous = this.lastMsgId;
    this.lastMsgId = this.msgIdOf(seq);
    await this.publish(seq, previous);
  }

  private async publish(seq: number, previousMsgId: string | undefined): Promise<void> {
    const firstOp = (seq - 1) * this.groupEntries + 1;
    const messageHeaders = headers();
    messageHeaders.set(JournalHeader.format, MESSAGE_FORMAT);
    messageHeaders.set(JournalHeader.firstOp, String(firstOp));
    messageHeaders.set(JournalHeader.lastOp, String(firstOp + this.groupEntries - 1));
    const ack = await this.js.publish(this.subject, this.payload, {
      msgID: this.msgIdOf(seq),
      headers: messageHeaders,
      timeout: ACK_TIMEOUT_MS,
      expect: {
        streamName: this.stream,
        lastSequence: seq - 1,
        ...(previousMsgId ? { lastMsgID: previousMsgId } : {}),
      },
    });
    if (ack.seq !== seq) throw new Error(`group ${seq} stored at sequence ${ack.seq}`);
  }

  private msgIdOf(seq: number): string {
    return `bench-raw:${(seq - 1) * this.groupEntries + 1}`;
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `raw-jetstream-publish: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
  },
);
