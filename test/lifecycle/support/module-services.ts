import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Operation, randomClientId } from '@once/protocol';
import { RawClient, ServiceProcess, bodyJson } from '@once/testing';
import { launchCommand } from '../../../libs/testing/src/service-launch';
import { type Session, registerOk } from '../../support/sessions';

/**
 * Services assembled from the versioned-ledger fixtures on one data
 * directory that outlives them: each start is a new deployment (another
 * module list, another version) of the same service, and a start the node
 * must refuse is run to its exit with everything it printed.
 */

/** A NestJS module of a service, as `ServiceProcess.start({ modules })` takes it. */
export interface ModuleSpec {
  readonly path: string;
  readonly export: string;
}

const FIXTURES = join(__dirname, '../../fixtures/versioned-ledger');

/** The ledger as first deployed: version 1, deposits free. */
export const LEDGER_V1: ModuleSpec = {
  path: join(FIXTURES, 'ledger-v1.ts'),
  export: 'LedgerModule',
};
/** Deposits take a fee of 1, version still 1: a handler changed without a bump. */
export const LEDGER_V1_WITH_FEE: ModuleSpec = {
  path: join(FIXTURES, 'ledger-v1-with-fee.ts'),
  export: 'LedgerModule',
};
/** Version 2: deposits take a fee of 1 from version 2 on (a `ctx.version` branch). */
export const LEDGER_V2: ModuleSpec = {
  path: join(FIXTURES, 'ledger-v2.ts'),
  export: 'LedgerModule',
};
/** The audit module, state `audit`. */
export const AUDIT: ModuleSpec = { path: join(FIXTURES, 'audit.module.ts'), export: 'AuditModule' };

export const USERNAME = 'alice';
export const PASSWORD = 'alice-pw';
const USERS = { [USERNAME]: PASSWORD };

/** A data directory kept across the deployments of a describe block, removed at its end. */
export class DeploymentDirectory {
  private home: string | undefined;

  async create(): Promise<void> {
    this.home = await mkdtemp(join(tmpdir(), 'once-lifecycle-'));
  }

  /** The data directory itself (created by the first service that starts on it). */
  get dataDir(): string {
    if (!this.home) throw new Error('create() the deployment directory first (in beforeAll)');
    return join(this.home, 'data');
  }

  async remove(): Promise<void> {
    if (this.home) await rm(this.home, { recursive: true, force: true });
  }
}

/** Starts a service of `modules` on `dataDir` and waits until it is ready. */
export function deploy(
  modules: readonly ModuleSpec[],
  dataDir: string,
  env: Readonly<Record<string, string>> = {},
): Promise<ServiceProcess> {
  return ServiceProcess.start({ modules, users: USERS, env, dataDir });
}

/** A connection to `service` with alice's session of `client` (REGISTER: opens it, or resumes it). */
export async function aliceSession(
  service: ServiceProcess,
  client = randomClientId(),
): Promise<{ raw: RawClient; session: Session }> {
  const raw = await RawClient.connect(service.port);
  const { session } = await registerOk(raw, client, USERNAME, PASSWORD);
  return { raw, session };
}

/** How a start that the node had to refuse ended. */
export interface RefusedStart {
  /** Exit code; null when the process ended by a signal. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Everything it wrote to stdout and stderr. */
  readonly output: string;
  /** The port it bound, if it got that far (requests get NOT_READY until ready). */
  readonly port: number | undefined;
  /** Whether a PING ever found it ready: it then served, and was SIGKILLed at once. */
  readonly servedReady: boolean;
  /** Whether it was still running at the bound and SIGKILLed then (a hang, not a refusal). */
  readonly killedAtBound: boolean;
}

export interface RefusalRunOptions {
  /** Extra environment (ONCE_* settings). */
  readonly env?: Readonly<Record<string, string>>;
  /** When a node still running is SIGKILLed (default 60 s): a bound, not a timing assertion. */
  readonly boundMs?: number;
}

const LISTENING = /(?:listening on|bound) ([0-9a-fA-F.:]+):(\d+)/;

/**
 * Starts a service of `modules` on `dataDir` that is expected never to
 * become ready, as `ServiceProcess` would start it (same entry, same
 * environment), and runs it to its exit. While it runs, its port (once
 * bound) is probed with PING: a node that says ready is SIGKILLed at once and
 * reported as having served. A node still running at the bound is SIGKILLed
 * too, so that a hang fails with its output instead of a bare jest timeout.
 */
export async function startExpectingRefusal(
  modules: readonly ModuleSpec[],
  dataDir: string,
  { env = {}, boundMs = 60_000 }: RefusalRunOptions = {},
): Promise<RefusedStart> {
  const { cwd, nodeArgs, entry } = launchCommand({ modules });
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    cwd,
    env: {
      ...process.env,
      ONCE_LOG_FORMAT: 'text',
      ONCE_TEST_MODULES: JSON.stringify(modules),
      ONCE_TEST_USERS: JSON.stringify(USERS),
      ...env,
      ONCE_DATA_DIR: dataDir,
      ONCE_PORT: '0',
      NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killChild = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killChild);
  let output = '';
  let port: number | undefined;
  const onData = (chunk: Buffer): void => {
    output += chunk.toString('utf8');
    if (port === undefined) {
      const match = LISTENING.exec(output);
      if (match) port = Number(match[2]);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  // 'close': the process has ended and everything it printed has been read.
  let ended = false;
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('close', (code, signal) => {
      ended = true;
      done({ code, signal });
    }),
  );
  let killedAtBound = false;
  const bound = setTimeout(() => {
    killedAtBound = true;
    killChild();
  }, boundMs);
  let servedReady = false;
  try {
    while (!ended) {
      if (port !== undefined && (await pingsReady(port))) {
        servedReady = true;
        killChild();
        break;
      }
      await Promise.race([closed, new Promise((done) => setTimeout(done, 250))]);
    }
    const { code, signal } = await closed;
    return { code, signal, output, port, servedReady, killedAtBound };
  } finally {
    clearTimeout(bound);
    process.off('exit', killChild);
  }
}

/** Whether a PING on `port` answers ready (false when it refuses, times out or is not ready). */
async function pingsReady(port: number): Promise<boolean> {
  let client: RawClient | undefined;
  try {
    client = await RawClient.connect(port);
    const pong = await client.request({ operation: Operation.Ping }, undefined, 2000);
    return (bodyJson(pong) as { ready?: boolean }).ready === true;
  } catch {
    return false;
  } finally {
    client?.destroy();
  }
}

/** `output` without the gateway's lines about the probes' connections, for failure messages. */
function readable(output: string): string {
  return output
    .split('\n')
    .filter((line) => !/\[OnceGateway\] connection #\d+ (?:from .* opened|closed)$/.test(line))
    .join('\n');
}

/**
 * Asserts that a refused start served nothing: it never said ready, it ended
 * by itself with exit code 1, and its port (if it bound one) now refuses.
 */
export async function expectRefusedWithExitCode1(run: RefusedStart): Promise<void> {
  const { servedReady, killedAtBound, code, signal } = run;
  if (servedReady || killedAtBound || code !== 1) {
    throw new Error(
      `expected a start refused with exit code 1, never ready; got ${JSON.stringify({ servedReady, killedAtBound, code, signal })}:\n${readable(run.output)}`,
    );
  }
  if (run.port !== undefined) await expect(RawClient.connect(run.port)).rejects.toThrow();
}

/**
 * The lines of `output` that name the error `code`: where a test looks for
 * what the refusal names (op, pattern, module, versions). Fails when none do.
 */
export function linesNaming(output: string, code: string): string {
  const lines = output.split('\n').filter((line) => line.includes(code));
  if (lines.length === 0) {
    throw new Error(`no line of the output names ${code}:\n${readable(output)}`);
  }
  return lines.join('\n');
}
