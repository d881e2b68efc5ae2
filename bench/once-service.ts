import { type BuildSnapshot, serviceMain } from './build-snapshot';
import { type PingReply, isReady, pingUntil, pingUntilReady } from './ping-client';
import { ServerChild } from './server-child';
import { sleep } from './sleep';

/** How the bench runs the reference service: its defaults except these. */
export interface OnceServiceOptions {
  /** The build whose service runs. */
  readonly build: BuildSnapshot;
  readonly dataDir: string;
  readonly adminPassword: string;
  /** ONCE_SNAPSHOT_EVERY_OPS; the service's default when absent. */
  readonly snapshotEveryOps?: number;
  /**
   * ONCE_CHECKPOINT_INTERVAL_MS (the reference service's ledger is keyed
   * state, so it writes checkpoints). Default: 0 (none) when
   * `snapshotEveryOps` is given, so that a run with snapshots off or at a
   * set interval measures the journal and those snapshots alone, as it
   * always did; the service's default otherwise (the module-state series).
   */
  readonly checkpointIntervalMs?: number;
  /** ONCE_PORT. Default 0: any free port. */
  readonly port?: number;
  /**
   * ONCE_HTTP_PORT (0: any free port): the ledger's exactly-once HTTP API
   * beside the client port. When set, {@link OnceService.start} also waits
   * for the HTTP listener, and {@link OnceService.httpPort} is its port.
   * Default: no HTTP listener.
   */
  readonly httpPort?: number;
  /** More ONCE_* settings (cluster mode: ONCE_NATS_SERVERS, ONCE_NODE_ID, …). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * When the started service counts as up, from its PING answers (polled
   * every 5 ms): `readyAfterMs` is measured to the first that passes.
   * Default: `ready: true`.
   */
  readonly readyWhen?: (reply: PingReply) => boolean;
}

/** What the service logs at the end of its boot replay. */
export interface ReplayReport {
  readonly appliedEntries: number;
  readonly totalEntries: number;
  readonly snapshotOp: number;
  readonly entriesPerSecond: number;
  readonly elapsedMs: number;
}

/** One `snapshot at op … written` line. */
export interface SnapshotWrite {
  readonly op: number;
  /** The snapshot value's bytes (keyed records are written beside it, not counted). */
  readonly bytes: number;
  /** From the capture's end to the synced batch. */
  readonly elapsedMs: number;
}

const SERVICE_HOST = '127.0.0.1';
/** The port is bound (`bound`) before the node is ready (`listening on`). */
const LISTENING = /(?:listening on|bound) [0-9a-fA-F.:]+:(\d+)/;
/** What the service logs once its ledger HTTP API listens (ONCE_HTTP_PORT set). */
const HTTP_LISTENING = /ledger HTTP API at https?:\/\/\S+:(\d+)/;
const REPLAY_DONE =
  /replay applied (\d+) entries \(ops (\d+)\.\.\d+\) in (\d+) ms at (\d+) entries\/s/;
const NOTHING_TO_REPLAY = /replay applied 0 entries \(nothing after op (\d+)\)/;
const SNAPSHOT_WRITTEN = /snapshot at op (\d+) written/g;
const SNAPSHOT_WRITE = /snapshot at op (\d+) written \((\d+) bytes, (\d+) ms\)/g;
const READY_TIMEOUT_MS = 600_000;
const READY_POLL_MS = 5;
const SNAPSHOT_POLL_MS = 50;

/**
 * The built reference service (`apps/server/src/main.js` of the build) as a child
 * process on a data directory of the bench, any free port.
 */
export class OnceService {
  private constructor(
    private readonly child: ServerChild,
    readonly port: number,
    /** Spawn to first PING answering ready, in ms. */
    readonly readyAfterMs: number,
    /** The PING that said ready. */
    readonly readyPing: PingReply,
    /** The port of the ledger's HTTP API; undefined without {@link OnceServiceOptions.httpPort}. */
    readonly httpPort: number | undefined,
  ) {}

  /** Spawns the service and resolves once a PING answers ready. */
  static async start(options: OnceServiceOptions): Promise<OnceService> {
    const child = ServerChild.spawn(options.build, serviceMain(options.build), [], {
      env: {
        ...unsetInheritedSettings(),
        ONCE_HOST: SERVICE_HOST,
        ONCE_PORT: String(options.port ?? 0),
        ONCE_DATA_DIR: options.dataDir,
        ONCE_ADMIN_PASSWORD: options.adminPassword,
        ...(options.snapshotEveryOps !== undefined && {
          ONCE_SNAPSHOT_EVERY_OPS: String(options.snapshotEveryOps),
        }),
        ...((options.checkpointIntervalMs !== undefined ||
          options.snapshotEveryOps !== undefined) && {
          ONCE_CHECKPOINT_INTERVAL_MS: String(options.checkpointIntervalMs ?? 0),
        }),
        ...(options.httpPort !== undefined && { ONCE_HTTP_PORT: String(options.httpPort) }),
        // The bench reads the service's text log lines.
        ONCE_LOG_FORMAT: 'text',
        ...options.env,
      },
    });
    try {
      const port = Number((await child.waitForLog(LISTENING, READY_TIMEOUT_MS))[1]);
      const ready = await pingUntil(
        SERVICE_HOST,
        port,
        READY_POLL_MS,
        READY_TIMEOUT_MS,
        options.readyWhen ?? isReady,
      );
      const readyAfterMs = performance.now() - child.spawnedAtMs;
      // The HTTP listener opens after the client port; it may log after the first ready PING.
      const httpPort =
        options.httpPort === undefined
          ? undefined
          : Number((await child.waitForLog(HTTP_LISTENING, READY_TIMEOUT_MS))[1]);
      return new OnceService(child, port, readyAfterMs, ready, httpPort);
    } catch (error) {
      await child.kill();
      throw error;
    }
  }

  /**
   * The boot's replay, from its `replay applied` line (after a snapshot at
   * the journal's end it says `0 entries`). Throws when the service logged
   * none.
   */
  get replay(): ReplayReport {
    const logs = this.child.logs;
    const done = REPLAY_DONE.exec(logs);
    if (done) {
      const [appliedEntries, firstOp, elapsedMs, entriesPerSecond] = done.slice(1).map(Number);
      const snapshotOp = firstOp - 1;
      return {
        appliedEntries,
        totalEntries: appliedEntries,
        snapshotOp,
        entriesPerSecond,
        elapsedMs,
      };
    }
    const nothing = NOTHING_TO_REPLAY.exec(logs);
    if (nothing) {
      const snapshotOp = Number(nothing[1]);
      return { appliedEntries: 0, totalEntries: 0, snapshotOp, entriesPerSecond: 0, elapsedMs: 0 };
    }
    throw new Error(`the service logged no end of replay:\n${this.child.tail()}`);
  }

  /** Ops of the snapshots this process wrote so far. */
  get snapshotsWritten(): number[] {
    return [...this.child.logs.matchAll(SNAPSHOT_WRITTEN)].map((match) => Number(match[1]));
  }

  /** The snapshots this process wrote so far: op, payload bytes, write time (capture excluded). */
  get snapshotWrites(): SnapshotWrite[] {
    return [...this.child.logs.matchAll(SNAPSHOT_WRITE)].map((match) => ({
      op: Number(match[1]),
      bytes: Number(match[2]),
      elapsedMs: Number(match[3]),
    }));
  }

  /** The node's highest committed op now. */
  async commitOp(): Promise<number> {
    return (await pingUntilReady(SERVICE_HOST, this.port, READY_POLL_MS, READY_TIMEOUT_MS)).commit;
  }

  /** Waits until this process logged a snapshot at `op` or later. */
  async waitForSnapshot(op: number, timeoutMs: number): Promise<void> {
    const deadlineMs = performance.now() + timeoutMs;
    while (!this.snapshotsWritten.some((written) => written >= op)) {
      if (performance.now() > deadlineMs || !this.child.running) {
        throw new Error(`no snapshot at op ${op} or later:\n${this.child.tail()}`);
      }
      await sleep(SNAPSHOT_POLL_MS);
    }
  }

  /** The service's process id (its /proc entry: bytes written, …). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Whether the process still runs. */
  get running(): boolean {
    return this.child.running;
  }

  /** The last lines the service logged, for error messages. */
  tail(): string {
    return this.child.tail();
  }

  /** SIGKILL: no graceful stop, hence no stop snapshot; only synced batches survive. */
  crash(): Promise<void> {
    return this.child.kill('SIGKILL');
  }
}

/**
 * Every ONCE_* variable of the bench's own environment, unset (spawn drops
 * undefined values): the service runs on its defaults, whatever the shell
 * that started the bench had set.
 */
function unsetInheritedSettings(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.keys(process.env)
      .filter((name) => name.startsWith('ONCE_'))
      .map((name) => [name, undefined]),
  );
}
