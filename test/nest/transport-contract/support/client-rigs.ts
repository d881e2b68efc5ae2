import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DynamicModule, type INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type ClientProxy, ClientProxyFactory, Transport } from '@nestjs/microservices';
import { ONCE_AUTHENTICATOR, OnceModule, OnceRuntime } from '@once/framework';
import { OnceServer } from '@once/gateway';
import { OnceClientProxy } from '@once/nest-client';
import { StaticAuthenticator } from '@once/testing';
import { OnceContractModule, TcpContractModule } from './client-handlers';

/** The user of the once node. */
const USER = { username: 'contract', password: 'pw' } as const;

/**
 * One transport under test: a server on a fixed port that can be stopped and
 * started again on it, and clients of that transport made the way an
 * application makes them (`ClientProxyFactory.create`, as `ClientsModule` does).
 */
export interface ClientRig {
  readonly transport: 'nest-tcp' | 'once';
  /** The port the server listens on, the same across restarts. */
  readonly port: number;
  readonly running: boolean;
  startServer(): Promise<void>;
  stopServer(): Promise<void>;
  /**
   * A client of this transport to the server's port; `options` are added to
   * the transport's client options (another `port`, a `serializer`, a once
   * client's `reconnect` or `identityFile`, …).
   */
  client(options?: Record<string, unknown>): ClientProxy;
  /** Stops the server and closes every client made here. */
  cleanup(): Promise<void>;
}

/** A port nothing listens on now (the kernel's pick, released again). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Base of both rigs: the fixed port, the running app, the clients to close. */
abstract class Rig implements ClientRig {
  abstract readonly transport: 'nest-tcp' | 'once';
  private app: INestMicroservice | undefined;
  protected readonly clients: ClientProxy[] = [];

  constructor(readonly port: number) {}

  get running(): boolean {
    return this.app !== undefined;
  }

  async startServer(): Promise<void> {
    if (this.app) throw new Error(`the ${this.transport} server already runs`);
    const app = await this.createApp();
    try {
      await app.listen();
      await this.whenServing(app);
    } catch (error) {
      await app.close().catch(() => undefined);
      throw error;
    }
    this.app = app;
  }

  async stopServer(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    await app?.close();
  }

  client(options: Record<string, unknown> = {}): ClientProxy {
    const client = this.createClient({ port: this.port, ...options });
    this.clients.push(client);
    return client;
  }

  async cleanup(): Promise<void> {
    for (const client of this.clients.splice(0)) {
      await Promise.resolve(client.close()).catch(() => undefined);
    }
    await this.stopServer();
  }

  protected abstract createApp(): Promise<INestMicroservice>;
  protected abstract whenServing(app: INestMicroservice): Promise<void>;
  protected abstract createClient(options: Record<string, unknown>): ClientProxy;
}

/** NestJS's own TCP transport: `Transport.TCP` server and client. */
class NestTcpRig extends Rig {
  readonly transport = 'nest-tcp';

  protected createApp(): Promise<INestMicroservice> {
    return NestFactory.createMicroservice(TcpContractModule, {
      transport: Transport.TCP,
      options: { host: '127.0.0.1', port: this.port },
      logger: false,
    });
  }

  protected whenServing(): Promise<void> {
    return Promise.resolve();
  }

  protected createClient(options: Record<string, unknown>): ClientProxy {
    return ClientProxyFactory.create({
      transport: Transport.TCP,
      options: { host: '127.0.0.1', ...options },
    });
  }
}

@Module({})
class OnceNodeModule {
  static register(dataDir: string): DynamicModule {
    return {
      module: OnceNodeModule,
      imports: [OnceModule.forRoot({ dataDir }), OnceContractModule],
      providers: [
        {
          provide: ONCE_AUTHENTICATOR,
          useValue: new StaticAuthenticator({ [USER.username]: USER.password }),
        },
      ],
    };
  }
}

/** A once node in this process (OnceServer + OnceModule on a temporary data directory) and OnceClientProxy. */
class OnceRig extends Rig {
  readonly transport = 'once';

  constructor(
    port: number,
    readonly dataDir: string,
    private readonly root: string,
  ) {
    super(port);
  }

  protected createApp(): Promise<INestMicroservice> {
    return NestFactory.createMicroservice(OnceNodeModule.register(this.dataDir), {
      strategy: new OnceServer({ port: this.port }),
      logger: false,
    });
  }

  protected async whenServing(app: INestMicroservice): Promise<void> {
    await app.get(OnceRuntime).whenReady();
  }

  protected createClient(options: Record<string, unknown>): ClientProxy {
    return ClientProxyFactory.create({
      customClass: OnceClientProxy,
      options: { ...USER, reconnect: { initialDelayMs: 10, delayMsMax: 100 }, ...options },
    });
  }

  override async cleanup(): Promise<void> {
    await super.cleanup();
    await rm(this.root, { recursive: true, force: true });
  }
}

export type TransportName = ClientRig['transport'];

/** The transports every scenario runs against. */
export const TRANSPORTS: readonly TransportName[] = ['nest-tcp', 'once'];

/** A rig of `transport` on a free port (and, for once, a fresh data directory); the server is not started. */
export async function clientRig(transport: TransportName): Promise<ClientRig> {
  if (transport === 'nest-tcp') return new NestTcpRig(await freePort());
  return onceRig();
}

/** The once rig, for the scenarios only once has. */
export async function onceRig(): Promise<OnceRig> {
  const root = await mkdtemp(join(tmpdir(), 'once-client-contract-'));
  return new OnceRig(await freePort(), join(root, 'data'), root);
}

export type { OnceRig };
export { USER as ONCE_USER };
