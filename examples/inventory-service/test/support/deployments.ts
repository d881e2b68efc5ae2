import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  RawClient,
  type Registration,
  ServiceProcess,
  type ServiceProcessOptions,
  ServiceStartError,
  registrationOf,
} from '@once/testing';
import { type Account, INVENTORY_USERS } from './inventory-harness';

/**
 * Deployments of the inventory service on one data directory that outlives
 * them: each start is a release of the code (another list of modules,
 * another version of a module) on the production data it would meet.
 */

/** A NestJS module of the service, as `ServiceProcess.start({ modules })` takes it. */
export type ModuleSpec = NonNullable<ServiceProcessOptions['modules']>[number];

const SOURCES = join(__dirname, '..', '..', 'src');

/** The inventory as it is deployed today: the example's own module, version 1. */
export const INVENTORY: ModuleSpec = {
  path: join(SOURCES, 'inventory', 'inventory.module.ts'),
  export: 'InventoryModule',
};
/** The release with a per-order limit, its version left at 1 (see inventory-v2.module.ts). */
export const INVENTORY_LIMIT_UNBUMPED: ModuleSpec = {
  path: join(__dirname, 'inventory-v2.module.ts'),
  export: 'InventoryWithLimitUnbumpedModule',
};
/** The same release done right: version 2, the limit under `ctx.version >= 2`. */
export const INVENTORY_V2: ModuleSpec = {
  path: join(__dirname, 'inventory-v2.module.ts'),
  export: 'InventoryV2Module',
};
/** The inventory of the release before keyed state: its state a whole-object `ModuleState` (see inventory-whole-object.module.ts). */
export const INVENTORY_WHOLE_OBJECT: ModuleSpec = {
  path: join(__dirname, 'inventory-whole-object.module.ts'),
  export: 'WholeObjectInventoryModule',
};
/** A module added in a later release: the state `audit` (see audit.module.ts). */
export const AUDIT: ModuleSpec = {
  path: join(__dirname, 'audit.module.ts'),
  export: 'AuditModule',
};

/** A data directory kept across the deployments of a describe block, removed at its end. */
export class DataDirectory {
  private home: string | undefined;

  async create(): Promise<void> {
    this.home = await mkdtemp(join(tmpdir(), 'inventory-deployments-'));
  }

  /** The data directory itself (the first service started on it creates it). */
  get path(): string {
    if (!this.home) throw new Error('create() the data directory first (in beforeAll)');
    return join(this.home, 'data');
  }

  async remove(): Promise<void> {
    if (this.home) await rm(this.home, { recursive: true, force: true });
  }
}

/** Starts a service of `modules` on `dataDir`, with the inventory's callers as users, and waits until it is ready. */
export function deploy(
  modules: readonly ModuleSpec[],
  dataDir: string,
  env: Readonly<Record<string, string>> = {},
): Promise<ServiceProcess> {
  return ServiceProcess.start({
    modules,
    dataDir,
    users: INVENTORY_USERS,
    env: { INVENTORY_WAREHOUSES: 'berlin,lyon', ...env },
  });
}

/**
 * Starts a service of `modules` on `dataDir` that must refuse to boot, and
 * returns what it printed. The test service ends a boot that fails with exit
 * code 1, so `ServiceProcess.start` rejects with a `ServiceStartError` that
 * says the service exited and quotes its output. A service that serves
 * instead is killed and fails the test.
 */
export async function refusedDeployment(
  modules: readonly ModuleSpec[],
  dataDir: string,
  env: Readonly<Record<string, string>> = {},
): Promise<string> {
  let served: ServiceProcess;
  try {
    served = await deploy(modules, dataDir, env);
  } catch (error) {
    // "exited": it ended by itself (not a start that timed out, nor options naming no service)
    if (!(error instanceof ServiceStartError) || !/\bexited\b/.test(error.message)) throw error;
    return error.message;
  }
  await served.crash();
  throw new Error(`the service was expected to refuse to boot, and served:\n${served.logs}`);
}

/** A session of the orders app on the wire: what it takes to resend a request after a restart. */
export interface WireSession extends Registration {
  readonly client: string;
}

/** A reply frame as the raw client reads it. */
export type ReplyFrame = Awaited<ReturnType<RawClient['command']>>;

/**
 * Opens a session of `account` with a raw client, as the SDK does under the
 * hood: the test keeps the client id, epoch and resume token, so it can
 * resend a request by its number on a later deployment, as a client that
 * never saw the reply would.
 */
export async function openWireSession(
  account: Account,
  port: number,
): Promise<{ raw: RawClient; session: WireSession }> {
  const raw = await RawClient.connect(port);
  // A client id is 128 random bits as 32 lowercase hex digits, as the SDK makes its own.
  const client = randomBytes(16).toString('hex');
  const session = {
    client,
    ...registrationOf(await raw.register(client, account.username, account.password)),
  };
  return { raw, session };
}

/** Sends (or resends) request number `request` of `session`, on any connection; resolves with the reply frame. */
export function sendCommand(
  raw: RawClient,
  session: WireSession,
  request: number,
  pattern: string,
  data: unknown,
): Promise<ReplyFrame> {
  return raw.command(session.client, session.epoch, request, pattern, data, session.resumeToken);
}
