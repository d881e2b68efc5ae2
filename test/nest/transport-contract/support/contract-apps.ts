import { type AddressInfo, type Server as NetServer } from 'node:net';
import { type DynamicModule, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type ClientProxy, ClientProxyFactory, Transport } from '@nestjs/microservices';
import { OnceServer } from '@once/gateway';
import { OnceClientProxy } from '@once/nest-client';
import { type ClientId, type Frame, randomClientId } from '@once/protocol';
import { RawClient, registrationOf } from '@once/testing';
import { type Observable } from 'rxjs';
import { GlobalReportingFilter } from './contract-enhancers';
import { NestTcpContractModule } from './nest-tcp-service';
import { OnceContractModule, USERS } from './once-service';
import { type ServerLog } from './server-log';
import { listenUntilReady } from '../../../support/listen-until-ready';

/** The @Query patterns of the once service: OnceClientProxy sends them as QUERY. */
export const ONCE_QUERIES = [
  'sum.of.read',
  'sum.async',
  'sum.later.read',
  'sum.stream.read',
  '{"cmd":"total","scope":"all"}',
  'contract.state',
  'seq.read',
  'secret.read',
];

/** A running service and a NestJS client of it. */
export interface ContractService {
  readonly app: INestMicroservice;
  readonly port: number;
  readonly client: ClientProxy;
  close(): Promise<void>;
}

/** The NestJS TCP service, on `Transport.TCP` at 127.0.0.1 and a free port, with the global filter. */
export async function startNestTcp(log: ServerLog): Promise<ContractService> {
  const app = await NestFactory.createMicroservice(NestTcpContractModule, {
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port: 0 },
    logger: log,
  });
  app.useGlobalFilters(new GlobalReportingFilter());
  await app.listen();
  const port = (app.unwrap<NetServer>().address() as AddressInfo).port;
  const client = ClientProxyFactory.create({
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port },
  });
  return {
    app,
    port,
    client,
    close: async () => {
      await client.close();
      await app.close();
    },
  };
}

/** The once service on `dataDir`: an in-process OnceServer, with the global filter; OnceClientProxy as alice. */
export async function startOnce(dataDir: string, log: ServerLog): Promise<ContractService> {
  const strategy = new OnceServer({ port: 0 });
  const app = await NestFactory.createMicroservice(OnceContractModule.register(dataDir), {
    strategy,
    logger: log,
  });
  app.useGlobalFilters(new GlobalReportingFilter());
  await listenUntilReady(app);
  const port = strategy.address()!.port;
  const client = onceClient(port);
  return {
    app,
    port,
    client,
    close: async () => {
      await client.close();
      await app.close();
    },
  };
}

/** OnceClientProxy as alice on `port` (reconnecting quickly). */
export function onceClient(port: number): OnceClientProxy {
  return new OnceClientProxy({
    port,
    username: 'alice',
    password: USERS.alice,
    queries: ONCE_QUERIES,
    reconnect: { initialDelayMs: 10, delayMsMax: 100 },
  });
}

/**
 * Builds `module` as a once service and listens: the error its bootstrap
 * rejects with (the app is closed), or a failure if it started.
 */
export async function onceBootError(module: DynamicModule, log: ServerLog): Promise<unknown> {
  const app = await NestFactory.createMicroservice(module, {
    strategy: new OnceServer({ port: 0 }),
    logger: log,
  });
  try {
    await app.listen();
  } catch (error) {
    return error;
  } finally {
    await app.close().catch(() => undefined);
  }
  throw new Error('the once service started');
}

/** What a client observable did: every value, then how it ended. */
export interface CallOutcome {
  readonly values: unknown[];
  readonly error?: unknown;
}

/** Subscribes to a client call and collects its values until it completes or errors. */
export function outcomeOfCall(call: Observable<unknown>): Promise<CallOutcome> {
  return new Promise((resolve) => {
    const values: unknown[] = [];
    call.subscribe({
      next: (value) => values.push(value),
      error: (error: unknown) => resolve({ values, error }),
      complete: () => resolve({ values }),
    });
  });
}

/** A raw protocol session of alice: numbered commands, their retries, queries. */
export class RawSession {
  private nextRequest = 1;

  private constructor(
    readonly raw: RawClient,
    readonly client: ClientId,
    readonly epoch: number,
    readonly resumeToken: Buffer,
  ) {}

  static async open(port: number): Promise<RawSession> {
    const raw = await RawClient.connect(port);
    const client = randomClientId();
    const { epoch, resumeToken } = registrationOf(await raw.register(client, 'alice', USERS.alice));
    return new RawSession(raw, client, epoch, resumeToken);
  }

  /** The next numbered COMMAND; its number is `request`. */
  async command(pattern: string, data: unknown): Promise<{ request: number; reply: Frame }> {
    const request = this.nextRequest++;
    const reply = await this.raw.command(this.client, this.epoch, request, pattern, data);
    return { request, reply };
  }

  /** A COMMAND under an earlier number, as a client retries it (on `raw`, another connection if given). */
  retry(request: number, pattern: string, data: unknown, raw = this.raw): Promise<Frame> {
    return raw.command(this.client, this.epoch, request, pattern, data, this.resumeToken);
  }

  query(pattern: string, data: unknown): Promise<Frame> {
    return this.raw.query(this.client, this.epoch, pattern, data);
  }

  close(): void {
    this.raw.destroy();
  }
}
