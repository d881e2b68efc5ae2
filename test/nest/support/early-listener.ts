import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type Frame } from '@once/protocol';
import { type RawClient, typescriptRegisterFile } from '@once/testing';
import { ROOT } from '../../support/node-program';

/** Prefix of the lines early-listener.main.ts reports on stdout. */
export const EARLY_LISTENER_MARK = 'early-listener ';
/** Users of the early-listener app: alice is user 1. */
export const EARLY_LISTENER_USERS = { alice: 'pw' } as const;

/**
 * The hybrid app of early-listener.main.ts as a child process, so that a
 * crash of the app is an exit the test sees rather than the end of the test
 * runner. Its once listener is open from `start()` on; its modules
 * initialise (the data directory opens) only after `init()`.
 */
export class EarlyListenerProcess {
  private readonly reports: Array<Record<string, unknown>> = [];
  private output = '';
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exited: Promise<void>;
  private readonly changed: Array<() => void> = [];

  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith(EARLY_LISTENER_MARK)) {
        this.reports.push(
          JSON.parse(line.slice(EARLY_LISTENER_MARK.length)) as Record<string, unknown>,
        );
      } else {
        this.output += `${line}\n`;
      }
      this.wake();
    });
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        this.wake();
        resolve();
      }),
    );
  }

  /** Starts the app on `dataDir`; resolves with the once listener's port once it is open. */
  static async start(dataDir: string): Promise<{ app: EarlyListenerProcess; port: number }> {
    const child = spawn(
      process.execPath,
      ['-r', typescriptRegisterFile(), join(__dirname, 'early-listener.main.ts')],
      {
        cwd: ROOT,
        env: { ...process.env, ONCE_DATA_DIR: dataDir, NO_COLOR: '1' },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    const app = new EarlyListenerProcess(child);
    // The app is compiled as it loads (ts-node style): on a loaded machine that alone takes tens of seconds.
    const port = await app.reported('listening', 'the once listener to open', 90_000);
    return { app, port: port as number };
  }

  /** Whether the process still runs. */
  get running(): boolean {
    return this.exit === undefined;
  }

  /** How it ended, and the tail of everything it printed: for failure messages. */
  describe(): string {
    const ended = this.exit
      ? `exited (code ${this.exit.code}, signal ${this.exit.signal})`
      : 'still running';
    return `the app ${ended}; its output ends with:\n${this.output.slice(-3000)}`;
  }

  /** Lets the app initialise (module init opens the data directory, then it replays); resolves when it serves. */
  async init(): Promise<void> {
    this.child.stdin!.write('init\n');
    await this.reported('ready', 'the app to initialise and serve');
  }

  /**
   * The next frame on `raw`; fails with the app's fate and output (rather
   * than a bare timeout or "connection closed") if none comes within the
   * bound. A bound on a hang, not a timing assertion.
   */
  async answer(raw: RawClient, what: string, boundMs = 5000): Promise<Frame> {
    try {
      return await raw.next(boundMs);
    } catch (error) {
      await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 500))]);
      throw new Error(`no answer to ${what} (${(error as Error).message}): ${this.describe()}`);
    }
  }

  /** SIGTERM, then SIGKILL if it does not end within the bound. */
  async stop(boundMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), boundMs);
    await this.exited;
    clearTimeout(timer);
  }

  private async reported(key: string, what: string, boundMs = 30_000): Promise<unknown> {
    const deadline = Date.now() + boundMs;
    for (;;) {
      const found = this.reports.find((report) => key in report);
      if (found) return found[key];
      if (!this.running || Date.now() > deadline)
        throw new Error(`still waiting for ${what}: ${this.describe()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.changed.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  private wake(): void {
    for (const wake of this.changed.splice(0)) wake();
  }
}
