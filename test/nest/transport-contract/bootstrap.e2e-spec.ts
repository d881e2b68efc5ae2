import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Controller,
  type DynamicModule,
  Injectable,
  type INestMicroservice,
  type LoggerService,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  type AsyncOptions,
  type ClientProvider,
  type ClientsModuleOptionsFactory,
  type ClientProxy,
  ClientsModule,
  MessagePattern,
  type MicroserviceOptions,
  Payload,
  Transport,
} from '@nestjs/microservices';
import { Command, ONCE_AUTHENTICATOR, OnceModule, OnceRuntime } from '@once/framework';
import { OnceServer } from '@once/gateway';
import { OnceClientProxy } from '@once/nest-client';
import { StaticAuthenticator } from '@once/testing';
import { lastValueFrom } from 'rxjs';
import { freePort } from './support/client-rigs';
import { USERS } from './support/once-service';

/*
 * NestJS's bootstrap specs, on NestJS TCP and on once: `sum-rpc-async` (the
 * microservice's options from an injected provider through `useFactory`, a
 * client from `ClientsModule.register`) and `buffer-logs-tcp` (`bufferLogs`
 * with a microservice that is initialised and never listens).
 */

type TransportName = 'nest-tcp' | 'once';

@Controller()
class TcpRpcController {
  @MessagePattern({ cmd: 'sum' })
  sum(@Payload() payload: number[]): number {
    return payload.reduce((a, b) => a + b, 0);
  }
}

@Controller()
class OnceRpcController {
  @Command({ cmd: 'sum' })
  sum(@Payload() payload: number[]): number {
    return payload.reduce((a, b) => a + b, 0);
  }
}

/** Where the microservice's options come from: a provider, as in NestJS's spec. */
@Injectable()
class RpcOptionsProvider {
  static transport: TransportName;
  static port: number;

  getOptions(): MicroserviceOptions {
    return serverOptionsOf(RpcOptionsProvider.transport, RpcOptionsProvider.port);
  }
}

/** A client of `transport`'s server on `port`, as `ClientsModule` takes it. */
function clientOptionsOf(transport: TransportName, port: number): ClientProvider {
  return transport === 'nest-tcp'
    ? { transport: Transport.TCP, options: { host: '127.0.0.1', port } }
    : {
        customClass: OnceClientProxy,
        options: { port, username: 'alice', password: USERS.alice },
      };
}

/** `transport`'s server on `port`, as `createMicroservice` takes it. */
function serverOptionsOf(transport: TransportName, port: number): MicroserviceOptions {
  return transport === 'nest-tcp'
    ? { transport: Transport.TCP, options: { host: '127.0.0.1', port } }
    : { strategy: new OnceServer({ port }) };
}

/** The app of `sum-rpc-async` on `transport`: its handler, the options provider and a registered client. */
function rpcModule(transport: TransportName, port: number, dataDir: string): DynamicModule {
  class RpcModule {}
  return {
    module: RpcModule,
    imports: [
      ClientsModule.register([{ name: 'RPC_CLIENT', ...clientOptionsOf(transport, port) }]),
      ...(transport === 'once' ? [OnceModule.forRoot({ dataDir })] : []),
    ],
    controllers: [transport === 'nest-tcp' ? TcpRpcController : OnceRpcController],
    providers: [
      RpcOptionsProvider,
      ...(transport === 'once'
        ? [{ provide: ONCE_AUTHENTICATOR, useValue: new StaticAuthenticator(USERS) }]
        : []),
    ],
  };
}

/** Collects what NestJS logs, as NestJS's buffer-logs spec does. */
class CollectingLogger implements LoggerService {
  readonly messages: string[] = [];
  log(message: unknown): void {
    this.messages.push(String(message));
  }
  error(message: unknown): void {
    this.messages.push(String(message));
  }
  warn(message: unknown): void {
    this.messages.push(String(message));
  }
}

describe.each<TransportName>(['nest-tcp', 'once'])(
  'NestJS’s bootstrap scenarios, on %s',
  (transport) => {
    let root: string;
    let nodes = 0;
    let app: INestMicroservice | undefined;

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'once-contract-bootstrap-'));
    });
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });
    afterAll(async () => {
      if (root) await rm(root, { recursive: true, force: true });
    });

    it('sum-rpc-async: given options from an injected provider (useFactory) and a ClientsModule client, when the client sends, then it gets the sum', async () => {
      const port = await freePort();
      Object.assign(RpcOptionsProvider, { transport, port });
      app = await NestFactory.createMicroservice<AsyncOptions<MicroserviceOptions>>(
        rpcModule(transport, port, join(root, `node-${++nodes}`)),
        {
          logger: false,
          inject: [RpcOptionsProvider],
          useFactory: (provider: RpcOptionsProvider) => provider.getOptions(),
        },
      );
      await app.listen();
      if (transport === 'once') await app.get(OnceRuntime).whenReady();
      const client = app.get<ClientProxy>('RPC_CLIENT', { strict: false });

      await expect(lastValueFrom(client.send({ cmd: 'sum' }, [1, 2, 3, 4, 5]))).resolves.toBe(15);
    });

    it.each(['useFactory', 'useClass'] as const)(
      'sum-rpc: given a client from ClientsModule.registerAsync (%s), when it sends, then it gets the sum',
      async (how) => {
        const port = await freePort();
        const options = clientOptionsOf(transport, port);
        class ClientOptionsFactory implements ClientsModuleOptionsFactory {
          createClientOptions(): ClientProvider {
            return options;
          }
        }
        const registered = ClientsModule.registerAsync([
          how === 'useFactory'
            ? { name: 'ASYNC_CLIENT', useFactory: () => options }
            : { name: 'ASYNC_CLIENT', useClass: ClientOptionsFactory },
        ]);
        const module = rpcModule(transport, port, join(root, `node-${++nodes}`));
        app = await NestFactory.createMicroservice<MicroserviceOptions>(
          { ...module, imports: [...(module.imports ?? []), registered] },
          { ...serverOptionsOf(transport, port), logger: false },
        );
        await app.listen();
        if (transport === 'once') await app.get(OnceRuntime).whenReady();
        const client = app.get<ClientProxy>('ASYNC_CLIENT', { strict: false });

        await expect(lastValueFrom(client.send({ cmd: 'sum' }, [1, 2, 3, 4, 5]))).resolves.toBe(15);
      },
    );

    it('buffer-logs-tcp: given bufferLogs, when the microservice is initialised and never listens, then NestJS 11.2 keeps the logs buffered until flushLogs()', async () => {
      const logger = new CollectingLogger();
      const port = await freePort();
      const options = serverOptionsOf(transport, port);
      app = await NestFactory.createMicroservice<MicroserviceOptions>(
        rpcModule(transport, port, join(root, `node-${++nodes}`)),
        { ...options, bufferLogs: true, logger },
      );
      expect(logger.messages).toEqual([]);

      await app.init();
      // A later NestJS flushes them here (its spec's first case); 11.2 waits for flushLogs().
      expect(logger.messages).toEqual([]);
      app.flushLogs();

      expect(logger.messages).toContain('Starting Nest application...');
    });
  },
);
