import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePorts } from './free-ports';

/** Options of {@link NatsCluster.start}. */
export interface NatsClusterOptions {
  /** How many `nats-server` processes, routed into one JetStream cluster. Default 3. */
  readonly servers?: number;
  /** The `nats-server` binary. Default `ONCE_NATS_SERVER_BIN`, else `nats-server` on PATH. */
  readonly bin?: string;
  /** How long `start`/`restart` wait for the servers to be ready. Default 30 s. */
  readonly readyTimeoutMs?: number;
  /** The servers' `max_payload`: the largest message a client may publish. Default NATS's (1 MiB). */
  readonly maxPayloadBytes?: number;
  /** How the servers authenticate clients. Default: not at all (anonymous clients). */
  readonly auth?: NatsClusterAuth;
  /** TLS on the client port (`tls { … }`); the URLs become `tls://`. Default: none. */
  readonly tls?: NatsClusterTls;
}

/**
 * Client authentication of the test servers, one of:
 * - `{ user, password }`: one user (`authorization { user, password }`);
 * - `{ token }`: one token (`authorization { token }`);
 * - `{ nkey }`: one user nkey, its public key `U…` (`authorization { users: [{ nkey }] }`);
 * - `{ accounts }`: an accounts file included as is (e.g. the repository's
 *   `deploy/nats/once-accounts.conf`, see {@link recommendedAccountsFile}),
 *   the servers given `env` (the passwords it names as `$VARIABLE`s), and
 *   `node` the credentials once nodes connect with;
 * - `{ config }`: configuration lines written as they are (e.g. an operator
 *   JWT, a resolver and its preloaded accounts).
 */
export type NatsClusterAuth =
  | { readonly user: string; readonly password: string }
  | { readonly token: string }
  | { readonly nkey: string }
  | { readonly config: string }
  | {
      readonly accounts: string;
      readonly env: Readonly<Record<string, string>>;
      readonly node: { readonly user: string; readonly password: string };
    };

/** The servers' TLS: PEM files, and whether clients must present a certificate the CA signed. */
export interface NatsClusterTls {
  readonly certFile: string;
  readonly keyFile: string;
  /** CA that client certificates must chain to. Default: none. */
  readonly caFile?: string;
  /** Require and verify client certificates (`verify: true`). Default false. */
  readonly verify?: boolean;
}

/**
 * The repository's recommended account layout (`deploy/nats/once-accounts.conf`),
 * found from this file or the working directory upwards; undefined outside
 * the repository (the published package does not ship it).
 */
export function recommendedAccountsFile(): string | undefined {
  for (const start of [__dirname, process.cwd()]) {
    for (let dir = start; ; dir = dirname(dir)) {
      const file = join(dir, 'deploy', 'nats', 'once-accounts.conf');
      if (existsSync(file)) return file;
      if (dirname(dir) === dir) break;
    }
  }
  return undefined;
}

/** The passwords `natsAuth: 'accounts'` gives the recommended layout's users. */
export const ACCOUNTS_PASSWORDS = { once: 'once-node-pw', app: 'outsider-app-pw' } as const;

/** `natsAuth: 'accounts'` as `NatsCluster` takes it: the shipped file, its passwords. */
export function recommendedAccounts(): NatsClusterAuth {
  const accounts = recommendedAccountsFile();
  if (accounts === undefined) {
    throw new Error('deploy/nats/once-accounts.conf not found above this package or the cwd');
  }
  return {
    accounts,
    env: { ONCE_NODE_PASSWORD: ACCOUNTS_PASSWORDS.once, APPS_PASSWORD: ACCOUNTS_PASSWORDS.app },
    node: { user: 'once', password: ACCOUNTS_PASSWORDS.once },
  };
}

/** `nats-server` is not on this machine: the message says how to install it. */
export class NatsServerMissingError extends Error {
  readonly code = 'NATS_SERVER_MISSING';
}

/** A server did not become ready in time, or exited while starting; its output is in the message. */
export class NatsStartError extends Error {
  readonly code = 'NATS_START';
}

const INSTALL_HINT =
  'install it with `apt-get install -y nats-server` (Debian, Ubuntu; `npm run test:e2e` does so ' +
  'where it runs as root), or from https://nats.io, and put it on PATH or set ONCE_NATS_SERVER_BIN';

/** The name the accounts file of `auth` is copied under, beside the servers' configurations. */
const ACCOUNTS_FILE = 'accounts.conf';

/** Tries at forming the cluster before `start` gives up. */
const FORM_ATTEMPTS_MAX = 2;

interface Member {
  readonly name: string;
  readonly clientPort: number;
  readonly routePort: number;
  readonly storeDir: string;
  readonly configFile: string;
  child?: ChildProcess;
  output: string;
}

/**
 * NATS servers with JetStream as child processes on 127.0.0.1, on free ports
 * and temporary store directories, for e2e tests of cluster mode: `kill(i)`
 * SIGKILLs one (its store stays), `restart(i)` starts it again on the same
 * ports and store, `cleanup()` kills them all and removes their directories.
 * With one server there is no route and JetStream runs standalone.
 */
export class NatsCluster {
  private constructor(
    private readonly bin: string,
    private readonly root: string,
    private readonly members: Member[],
    private readonly readyTimeoutMs: number,
    private readonly options: NatsClusterOptions = {},
  ) {}

  static async start(options: NatsClusterOptions = {}): Promise<NatsCluster> {
    const bin = options.bin ?? process.env.ONCE_NATS_SERVER_BIN ?? 'nats-server';
    if (spawnSync(bin, ['--version'], { stdio: 'ignore' }).status !== 0) {
      throw new NatsServerMissingError(`cannot run ${bin}: ${INSTALL_HINT}`);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await NatsCluster.form(bin, options);
      } catch (error) {
        // A routed cold start now and then never elects its JetStream
        // metadata leader (seen with nats-server 2.9 on a loaded machine,
        // after duplicate routes): form the cluster again, on fresh ports
        // and stores, once. Anything else, or a second failure, is the test's.
        if (!(error instanceof NatsStartError) || attempt >= FORM_ATTEMPTS_MAX) throw error;
        process.stderr.write(
          `NatsCluster: ${error.message.split('\n')[0].replace(/:$/, '')}; forming it again\n`,
        );
      }
    }
  }

  /** One try at starting every server and waiting until each is ready. */
  private static async form(bin: string, options: NatsClusterOptions): Promise<NatsCluster> {
    const count = options.servers ?? 3;
    const root = await mkdtemp(join(tmpdir(), 'once-nats-'));
    const ports = await freePorts(count * 2);
    const members: Member[] = [];
    for (let i = 0; i < count; i++) {
      const name = `n${i + 1}`;
      members.push({
        name,
        clientPort: ports[2 * i],
        routePort: ports[2 * i + 1],
        storeDir: join(root, name),
        configFile: join(root, `${name}.conf`),
        output: '',
      });
    }
    // nats-server includes files by a path relative to the including one.
    if (options.auth && 'accounts' in options.auth) {
      await copyFile(options.auth.accounts, join(root, ACCOUNTS_FILE));
    }
    for (const member of members) {
      await writeFile(member.configFile, configOf(member, members, options));
    }
    const cluster = new NatsCluster(bin, root, members, options.readyTimeoutMs ?? 30_000, options);
    try {
      await Promise.all(members.map((_, index) => cluster.launch(index)));
    } catch (error) {
      await cluster.cleanup();
      throw error;
    }
    return cluster;
  }

  /** `nats://127.0.0.1:<port>` (`tls://` with `tls`) of every server, in index order. */
  get urls(): string[] {
    const scheme = this.options.tls ? 'tls' : 'nats';
    return this.members.map((member) => `${scheme}://127.0.0.1:${member.clientPort}`);
  }

  /**
   * The environment a once node needs to connect (`ONCE_NATS_USER` and
   * `ONCE_NATS_PASSWORD`, or `ONCE_NATS_TOKEN`), by `auth`; empty without
   * authentication or with an nkey (whose seed file is the test's).
   */
  get nodeEnv(): Readonly<Record<string, string>> {
    const auth = this.options.auth;
    if (auth === undefined) return {};
    if ('accounts' in auth) {
      return { ONCE_NATS_USER: auth.node.user, ONCE_NATS_PASSWORD: auth.node.password };
    }
    if ('user' in auth) return { ONCE_NATS_USER: auth.user, ONCE_NATS_PASSWORD: auth.password };
    if ('token' in auth) return { ONCE_NATS_TOKEN: auth.token };
    return {};
  }

  /** The servers' names (`n1`, `n2`, …), as JetStream reports its stream leader. */
  get names(): string[] {
    return this.members.map((member) => member.name);
  }

  /** Everything server `index` printed, across its restarts. */
  logs(index: number): string {
    return this.members[index].output;
  }

  running(index: number): boolean {
    const child = this.members[index].child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** SIGKILLs server `index` and waits until it is gone; its store stays. */
  async kill(index: number): Promise<void> {
    const child = this.members[index].child;
    if (!child || !this.running(index)) return;
    const gone = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGKILL');
    await gone;
  }

  /** Starts server `index` again on its ports and store (killing it first if it runs). */
  async restart(index: number): Promise<void> {
    await this.kill(index);
    await this.launch(index);
  }

  /** Kills every server and removes the stores. */
  async cleanup(): Promise<void> {
    await Promise.all(this.members.map((_, index) => this.kill(index)));
    await rm(this.root, { recursive: true, force: true });
  }

  private async launch(index: number): Promise<void> {
    const member = this.members[index];
    const auth = this.options.auth;
    const child = spawn(this.bin, ['-c', member.configFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: auth && 'accounts' in auth ? { ...process.env, ...auth.env } : process.env,
    });
    member.child = child;
    const from = member.output.length;
    // Routed servers are ready for JetStream once they know the metadata leader.
    const readyLines =
      this.members.length > 1 ? ['Server is ready', 'metadata leader'] : ['Server is ready'];
    const ready = new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        member.output += chunk.toString('utf8');
        const since = member.output.slice(from);
        if (readyLines.every((line) => since.includes(line))) resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('close', (code, signal) =>
        reject(
          new NatsStartError(
            `nats-server ${member.name} exited (${code ?? signal}) while starting:\n${member.output.slice(-3000)}`,
          ),
        ),
      );
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new NatsStartError(
              `nats-server ${member.name} not ready within ${this.readyTimeoutMs} ms:\n${member.output.slice(-3000)}`,
            ),
          ),
        this.readyTimeoutMs,
      );
    });
    try {
      await Promise.race([ready, timeout]);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A server's configuration: client and route listeners on loopback, JetStream on its store. */
function configOf(member: Member, members: readonly Member[], options: NatsClusterOptions): string {
  const { maxPayloadBytes } = options;
  const lines = [
    `server_name: ${member.name}`,
    `listen: 127.0.0.1:${member.clientPort}`,
    ...(maxPayloadBytes === undefined ? [] : [`max_payload: ${maxPayloadBytes}`]),
    ...authLines(options.auth),
    ...tlsLines(options.tls),
    `jetstream {`,
    `  store_dir: ${JSON.stringify(member.storeDir)}`,
    `  max_memory_store: 256MB`,
    `  max_file_store: 2GB`,
    `}`,
  ];
  if (members.length > 1) {
    const routes = members
      .filter((other) => other !== member)
      .map((other) => `    nats-route://127.0.0.1:${other.routePort}`);
    lines.push(
      `cluster {`,
      `  name: once-test`,
      `  listen: 127.0.0.1:${member.routePort}`,
      `  routes: [`,
      ...routes,
      `  ]`,
      `}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The configuration lines of `auth`. */
function authLines(auth: NatsClusterAuth | undefined): string[] {
  if (auth === undefined) return [];
  if ('accounts' in auth) return [`include ${JSON.stringify(ACCOUNTS_FILE)}`];
  if ('config' in auth) return [auth.config];
  if ('user' in auth) {
    return [
      `authorization {`,
      `  user: ${JSON.stringify(auth.user)}`,
      `  password: ${JSON.stringify(auth.password)}`,
      `}`,
    ];
  }
  if ('token' in auth) return [`authorization {`, `  token: ${JSON.stringify(auth.token)}`, `}`];
  return [`authorization {`, `  users: [ { nkey: ${JSON.stringify(auth.nkey)} } ]`, `}`];
}

/** The configuration lines of `tls`. */
function tlsLines(tls: NatsClusterTls | undefined): string[] {
  if (tls === undefined) return [];
  return [
    `tls {`,
    `  cert_file: ${JSON.stringify(tls.certFile)}`,
    `  key_file: ${JSON.stringify(tls.keyFile)}`,
    ...(tls.caFile === undefined ? [] : [`  ca_file: ${JSON.stringify(tls.caFile)}`]),
    `  verify: ${tls.verify === true}`,
    `}`,
  ];
}
