import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePorts } from '@once/testing';
import { ServerChild } from './server-child';

/** The binary the bench runs; ONCE_NATS_SERVER_BIN as for the e2e tests. */
const NATS_SERVER_BIN = process.env.ONCE_NATS_SERVER_BIN || 'nats-server';
const INSTALL_HINT =
  'install it with `apt-get install -y nats-server` (Debian, Ubuntu) or from https://nats.io, ' +
  'and put it on PATH (or set ONCE_NATS_SERVER_BIN to its path)';
const READY_TIMEOUT_MS = 30_000;
/** Routed servers serve JetStream once they know the metadata leader. */
const READY_LINES = [/Server is ready/, /metadata leader/i];

/** One server of {@link NatsServers}. */
interface NatsMember {
  readonly name: string;
  readonly clientPort: number;
  readonly routePort: number;
  readonly configFile: string;
}

/**
 * The NATS JetStream cluster of the cluster bench: `count` routed
 * `nats-server` processes on 127.0.0.1, their stores under the bench's work
 * directory (on the repository's disk, like every data directory of the
 * bench, never a tmpfs). Children of the bench: killed with it.
 */
export class NatsServers {
  private constructor(
    private readonly members: readonly NatsMember[],
    private readonly children: readonly ServerChild[],
    /** `nats-server --version`. */
    readonly version: string,
  ) {}

  /** Starts the servers; throws, saying how to install it, when `nats-server` is missing. */
  static async start(root: string, count: number): Promise<NatsServers> {
    const probe = spawnSync(NATS_SERVER_BIN, ['--version'], { encoding: 'utf8' });
    if (probe.status !== 0) {
      throw new Error(
        `the cluster bench needs nats-server, and ${NATS_SERVER_BIN} does not run: ${INSTALL_HINT}`,
      );
    }
    await mkdir(root, { recursive: true });
    const ports = await freePorts(2 * count);
    const members = Array.from({ length: count }, (_, i) => ({
      name: `n${i + 1}`,
      clientPort: ports[2 * i],
      routePort: ports[2 * i + 1],
      configFile: join(root, `n${i + 1}.conf`),
    }));
    for (const member of members) {
      await writeFile(member.configFile, configOf(member, members, join(root, member.name)));
    }
    const children = members.map((member) =>
      ServerChild.spawnProgram(NATS_SERVER_BIN, ['-c', member.configFile]),
    );
    try {
      await Promise.all(
        children.map(async (child) => {
          for (const line of READY_LINES) await child.waitForLog(line, READY_TIMEOUT_MS);
        }),
      );
    } catch (error) {
      await Promise.all(children.map((child) => child.kill()));
      throw error;
    }
    return new NatsServers(members, children, probe.stdout.trim());
  }

  /** `nats://127.0.0.1:<port>` of every server. */
  get urls(): string[] {
    return this.members.map((member) => `nats://127.0.0.1:${member.clientPort}`);
  }

  /** SIGKILLs every server (their stores go with the work directory). */
  async stop(): Promise<void> {
    await Promise.all(this.children.map((child) => child.kill()));
  }
}

/**
 * A server's configuration: loopback listeners, JetStream on its own store
 * (limits far above what a bench writes), routes to every other server.
 */
function configOf(member: NatsMember, members: readonly NatsMember[], storeDir: string): string {
  const lines = [
    `server_name: ${member.name}`,
    `listen: 127.0.0.1:${member.clientPort}`,
    'jetstream {',
    `  store_dir: ${JSON.stringify(storeDir)}`,
    '  max_memory_store: 256MB',
    '  max_file_store: 20GB',
    '}',
  ];
  if (members.length > 1) {
    lines.push(
      'cluster {',
      '  name: once-bench',
      `  listen: 127.0.0.1:${member.routePort}`,
      '  routes: [',
      ...members
        .filter((other) => other !== member)
        .map((other) => `    nats-route://127.0.0.1:${other.routePort}`),
      '  ]',
      '}',
    );
  }
  return `${lines.join('\n')}\n`;
}
