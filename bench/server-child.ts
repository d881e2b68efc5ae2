import { type ChildProcess } from 'node:child_process';
import { type ProgramUser, type SpawnNodeOptions, spawnNode, spawnTracked } from './bench-children';
import { type BuildSnapshot, benchScript } from './build-snapshot';

/** What the bench's own server entries print once they accept connections. */
const LISTENING = /listening (\d+)/;
const LISTEN_TIMEOUT_MS = 30_000;

/**
 * A long-running server child (the once service, the NestJS echo server):
 * keeps everything it logs, lets the orchestrator wait for a log line, and
 * remembers when it was spawned (restart times count from there).
 */
export class ServerChild {
  private output = '';
  private readonly exit: Promise<void>;
  private readonly watchers = new Set<() => void>();

  private constructor(
    private readonly child: ChildProcess,
    /** `performance.now()` just before the spawn. */
    readonly spawnedAtMs: number,
  ) {
    const onData = (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
      for (const watcher of this.watchers) watcher();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    this.exit = new Promise((resolve) =>
      child.once('exit', () => {
        resolve();
        for (const watcher of this.watchers) watcher();
      }),
    );
  }

  static spawn(
    build: BuildSnapshot,
    script: string,
    args: readonly string[],
    options: SpawnNodeOptions,
  ): ServerChild {
    const spawnedAtMs = performance.now();
    return new ServerChild(spawnNode(build, script, args, options), spawnedAtMs);
  }

  /**
   * A bench server entry of the build (`entry`, e.g. `nest-tcp-echo`) that
   * prints `listening <port>` once it accepts connections: the child and that
   * port, or, when it does not within 30 s, the child killed and the error
   * thrown.
   */
  static async spawnListening(
    build: BuildSnapshot,
    entry: string,
    args: readonly string[],
  ): Promise<{ child: ServerChild; port: number }> {
    const child = ServerChild.spawn(build, benchScript(build, entry), args, {});
    try {
      return { child, port: Number((await child.waitForLog(LISTENING, LISTEN_TIMEOUT_MS))[1]) };
    } catch (error) {
      await child.kill();
      throw error;
    }
  }

  /** A server that is not a Node script of the build (`nats-server`), as `user` if given. */
  static spawnProgram(command: string, args: readonly string[], user?: ProgramUser): ServerChild {
    const spawnedAtMs = performance.now();
    return new ServerChild(spawnTracked(command, args, process.env, user), spawnedAtMs);
  }

  /** Everything written to stdout and stderr so far. */
  get logs(): string {
    return this.output;
  }

  /** The process id (undefined when the spawn failed). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the first match of `pattern` in the logs (past or future). */
  waitForLog(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(this.output);
        if (match) {
          done();
          resolve(match);
        } else if (!this.running) {
          done();
          reject(new Error(`the server exited before logging ${pattern}:\n${this.tail()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${this.tail()}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.watchers.delete(check);
      };
      this.watchers.add(check);
      check();
    });
  }

  /** Sends `signal` and resolves once the process is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.running) this.child.kill(signal);
    await this.exit;
  }

  /** The last lines logged, for error messages. */
  tail(): string {
    return this.output.slice(-4000);
  }
}
