import { type ChildProcess, spawn } from 'node:child_process';
import { type ConnectionOptions } from 'node:tls';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OnceModuleOptions } from '@once/framework';
import { Operation } from '@once/protocol';
import { RawClient, bodyJson } from './raw-client';
import { launchCommand } from './service-launch';
import { ServiceStartError } from './service-start.error';

export { ServiceStartError };

export interface ServiceProcessOptions {
  /**
   * The service's entry script: a built `.js` file, or a `.ts` file run
   * through the TypeScript hook (or `loader`). Relative to `root`.
   * Default, inside the once repository only: its built reference service
   * (`npm run build` first). Elsewhere give `entry` or `modules`.
   */
  readonly entry?: string;
  /** Data directory; default a fresh temporary one, removed by `cleanup()`. */
  readonly dataDir?: string;
  /** Extra environment (ONCE_* settings). ONCE_PORT defaults to 0 (any free port). */
  readonly env?: Readonly<Record<string, string>>;
  readonly args?: readonly string[];
  /** How long `start`/`restart` wait for PING ready. Default 30 s. */
  readonly readyTimeoutMs?: number;
  /**
   * The child's working directory, against which `entry` is resolved.
   * Default: the once repository's root when this package runs inside it,
   * else the current working directory.
   */
  readonly root?: string;
  /**
   * Instead of an entry: a service made of these NestJS modules plus
   * OnceModule and OnceServer, each an absolute path and an export name.
   * Compiled `.js` files run as they are; `.ts` files are transpiled on the
   * fly with the project's own `typescript` (decorators and their metadata
   * on, no type checking, tsconfig not read), unless `loader` is given.
   */
  readonly modules?: ReadonlyArray<{ readonly path: string; readonly export: string }>;
  /**
   * A module preloaded in the child with `node -r`, in place of the built-in
   * TypeScript hook: for a project whose TypeScript needs its tsconfig
   * (paths, another target), e.g. `ts-node/register` or
   * `tsconfig-paths/register`. A bare name is resolved from `root`.
   * Default: the built-in hook, only when the entry or a module is a `.ts` file.
   */
  readonly loader?: string;
  /** The service serves TLS (its ONCE_TLS_* settings are in `env`): readiness is probed with these options. */
  readonly tls?: ConnectionOptions;
  /** With `modules`: users of a static authenticator (ids 1, 2, … in this order). */
  readonly users?: Readonly<Record<string, string>>;
  /**
   * With `modules`: the commands a new data directory starts with (OnceModule's
   * `genesis`), e.g. `adminGenesis(password)` from `@once/users` when the
   * modules include `UsersModule` (then leave `users` out: UsersModule is the
   * authenticator). Ignored when the directory exists.
   */
  readonly genesis?: OnceModuleOptions['genesis'];
}

const LISTENING = /(?:listening on|bound) ([0-9a-fA-F.:]+):(\d+)/;

/**
 * Service processes of this process that may still run. When this process
 * exits (a test run that ends without `cleanup()`, a soak that fails), they
 * are SIGKILLed with it rather than left holding their port and directory.
 * The listener is attached only while the set is non-empty.
 */
const liveChildren = new Set<ChildProcess>();
const killLiveChildren = (): void => {
  for (const child of liveChildren) child.kill('SIGKILL');
};

function track(child: ChildProcess): void {
  if (liveChildren.size === 0) process.once('exit', killLiveChildren);
  liveChildren.add(child);
  child.once('exit', () => {
    liveChildren.delete(child);
    if (liveChildren.size === 0) process.off('exit', killLiveChildren);
  });
}

/**
 * A once service as a child process on a temporary data directory, for e2e
 * tests: `crash()` kills it with SIGKILL (no snapshot, no flush beyond what
 * was synced), `restart()` starts it again on the same directory and port,
 * `stop()` is the graceful SIGTERM path.
 */
export class ServiceProcess {
  private child: ChildProcess | undefined;
  private exitPromise: Promise<number | null> | undefined;
  private output = '';
  private portValue = 0;
  private readonly host: string;

  private constructor(
    private readonly options: ServiceProcessOptions,
    readonly dataDir: string,
    private readonly ownsDataDir: string | undefined,
  ) {
    this.host = options.env?.ONCE_HOST ?? '127.0.0.1';
  }

  static async start(options: ServiceProcessOptions = {}): Promise<ServiceProcess> {
    launchCommand(options);
    let owned: string | undefined;
    let dataDir = options.dataDir;
    if (!dataDir) {
      owned = await mkdtemp(join(tmpdir(), 'once-service-'));
      dataDir = join(owned, 'data');
    }
    const service = new ServiceProcess(options, dataDir, owned);
    await service.launch(Number(options.env?.ONCE_PORT ?? 0));
    return service;
  }

  get port(): number {
    return this.portValue;
  }
  get address(): { host: string; port: number } {
    return { host: this.host, port: this.portValue };
  }
  /** Everything the process wrote to stdout and stderr, across restarts. */
  get logs(): string {
    return this.output;
  }
  /**
   * The signal the last process ended by, or null (it exited, or runs). A
   * NestJS app with `enableShutdownHooks()` re-raises the signal it stopped
   * for once its shutdown hooks have all run.
   */
  get exitSignal(): NodeJS.Signals | null {
    return this.child?.signalCode ?? null;
  }

  get running(): boolean {
    return (
      this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null
    );
  }

  /** SIGKILL: the process dies between any two instructions. */
  async crash(): Promise<void> {
    if (!this.child || !this.running) return;
    this.child.kill('SIGKILL');
    await this.exitPromise;
  }

  /** Starts again on the same data directory and port. */
  async restart(extraEnv: Readonly<Record<string, string>> = {}): Promise<void> {
    if (this.running) await this.crash();
    await this.launch(this.portValue, extraEnv);
  }

  /**
   * Graceful stop by `signal` (SIGTERM by default; SIGKILL after `timeoutMs`);
   * resolves with the exit code (null when the process ended by the signal).
   */
  async stop(timeoutMs = 20_000, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (!this.child || !this.running) return this.child?.exitCode ?? null;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exitPromise!;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for the process to exit by itself (e.g. a refused start); resolves with its exit code. */
  async exited(): Promise<number | null> {
    return (await this.exitPromise) ?? null;
  }

  /** Kills the process if it runs and removes the temporary data directory. */
  async cleanup(): Promise<void> {
    await this.crash();
    if (this.ownsDataDir) await rm(this.ownsDataDir, { recursive: true, force: true });
  }

  /** Polls PING until the node says ready. */
  async waitReady(timeoutMs = this.options.readyTimeoutMs ?? 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running)
        throw new ServiceStartError(
          `the service exited before it was ready:\n${this.output.slice(-4000)}`,
        );
      try {
        const client = await RawClient.connect(this.portValue, this.host, this.options.tls);
        try {
          const ready = (
            bodyJson(await client.request({ operation: Operation.Ping }, undefined, 2000)) as {
              ready?: boolean;
            }
          ).ready;
          if (ready) return;
        } finally {
          client.destroy();
        }
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline)
        throw new ServiceStartError(
          `not ready within ${timeoutMs} ms:\n${this.output.slice(-4000)}`,
        );
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  private async launch(
    port: number,
    extraEnv: Readonly<Record<string, string>> = {},
  ): Promise<void> {
    const { cwd, nodeArgs, entry } = launchCommand(this.options);
    const moduleEnv: Record<string, string> = this.options.modules
      ? {
          ONCE_TEST_MODULES: JSON.stringify(this.options.modules),
          ...(this.options.users && { ONCE_TEST_USERS: JSON.stringify(this.options.users) }),
          ...(this.options.genesis && { ONCE_TEST_GENESIS: JSON.stringify(this.options.genesis) }),
        }
      : {};
    const child = spawn(process.execPath, [...nodeArgs, entry, ...(this.options.args ?? [])], {
      cwd,
      env: {
        ...process.env,
        ONCE_LOG_FORMAT: 'text',
        ...moduleEnv,
        ...this.options.env,
        ...extraEnv,
        ONCE_DATA_DIR: this.dataDir,
        ONCE_PORT: String(port),
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    track(child);
    // 'close', not 'exit': the process has ended *and* everything it printed has been read.
    this.exitPromise = new Promise((done) => child.once('close', (code) => done(code)));
    const listening = new Promise<number>((found, failed) => {
      const onData = (chunk: Buffer) => {
        this.output += chunk.toString('utf8');
        const match = LISTENING.exec(this.output.slice(-2000));
        if (match) found(Number(match[2]));
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('close', (code, signal) =>
        failed(
          new ServiceStartError(
            `the service exited (${code ?? signal}) before listening:\n${this.output.slice(-4000)}`,
          ),
        ),
      );
    });
    const timeoutMs = this.options.readyTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, failed) => {
      timer = setTimeout(
        () =>
          failed(
            new ServiceStartError(
              `not listening within ${timeoutMs} ms:\n${this.output.slice(-4000)}`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      this.portValue = await Promise.race([listening, timeout]);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    } finally {
      clearTimeout(timer);
    }
    try {
      await this.waitReady();
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
  }
}
