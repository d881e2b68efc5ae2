import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CallHandler,
  type CanActivate,
  Catch,
  Controller,
  type DynamicModule,
  type ExceptionFilter,
  type ExecutionContext,
  type INestApplication,
  type INestMicroservice,
  type NestInterceptor,
  type PipeTransform,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  type ClientProxy,
  ClientProxyFactory,
  MessagePattern,
  RpcException,
  Transport,
} from '@nestjs/microservices';
import { Command, OnceRuntime, Query } from '@once/framework';
import { OnceServer } from '@once/gateway';
import { type Observable, firstValueFrom, throwError } from 'rxjs';
import { onceModuleWith } from './support/bootstrap-modules';
import { onceClient } from './support/contract-apps';

/*
 * NestJS's hybrid-app specs, on NestJS TCP and on once: `global-config-applied`
 * (the guards, filters, interceptors and pipes given to the connected
 * microservice's `useGlobal…` run for its handlers) and
 * `hybrid-shutdown-hooks` (the signal listeners a connected microservice's
 * `enableShutdownHooks` adds are gone after `app.close()`).
 */

type TransportName = 'nest-tcp' | 'once';

/** Whether the NestJS version under test leaves a connected microservice's shutdown-hook listener after `app.close()`. */
const NEST_LEAVES_SHUTDOWN_LISTENER = true;

/** Which of the spies ran. */
const called = { guard: false, filter: false, interceptor: false, pipe: false };

class SpyGuard implements CanActivate {
  canActivate(): boolean {
    called.guard = true;
    return true;
  }
}

@Catch()
class SpyFilter implements ExceptionFilter {
  catch(exception: unknown): Observable<never> {
    called.filter = true;
    return throwError(() => (exception instanceof RpcException ? exception.getError() : exception));
  }
}

class SpyInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    called.interceptor = true;
    return next.handle();
  }
}

class SpyPipe implements PipeTransform {
  transform(value: unknown): unknown {
    called.pipe = true;
    return value;
  }
}

const sum = (numbers: number[]) => numbers.reduce((a, b) => a + b, 0);

@Controller()
class TcpHybridController {
  @MessagePattern({ cmd: 'sum' })
  sum(numbers: number[]): number {
    return sum(numbers);
  }

  @MessagePattern({ cmd: 'exception' })
  exception(): never {
    throw new RpcException('failed');
  }
}

@Controller()
class OnceHybridController {
  @Command({ cmd: 'sum' })
  sum(numbers: number[]): number {
    return sum(numbers);
  }

  @Query({ cmd: 'exception' })
  exception(): never {
    throw new RpcException('failed');
  }
}

/**
 * A hybrid app (HTTP, not listening) with one microservice of `transport`,
 * connected with `deferInitialization` (a microservice registers its
 * handlers when it is connected otherwise, before `useGlobal…` could add to
 * them), and a client of it.
 */
interface Hybrid {
  readonly app: INestApplication;
  readonly microservice: INestMicroservice;
  start(): Promise<ClientProxy>;
}

async function hybrid(transport: TransportName, dataDir: string): Promise<Hybrid> {
  if (transport === 'nest-tcp') {
    const app = await NestFactory.create(
      { module: class TcpHybridModule {}, controllers: [TcpHybridController] } as DynamicModule,
      { logger: false },
    );
    const microservice = app.connectMicroservice(
      { transport: Transport.TCP, options: { host: '127.0.0.1', port: 0 } },
      { deferInitialization: true },
    );
    return {
      app,
      microservice,
      start: async () => {
        await app.startAllMicroservices();
        await app.init();
        const { port } = microservice.unwrap<NetServer>().address() as AddressInfo;
        return ClientProxyFactory.create({
          transport: Transport.TCP,
          options: { host: '127.0.0.1', port },
        });
      },
    };
  }
  const app = await NestFactory.create(onceModuleWith(dataDir, [OnceHybridController]), {
    logger: false,
  });
  const strategy = new OnceServer({ port: 0 });
  const microservice = app.connectMicroservice({ strategy }, { deferInitialization: true });
  return {
    app,
    microservice,
    start: async () => {
      await app.startAllMicroservices();
      await app.init();
      await app.get(OnceRuntime).whenReady();
      const client = onceClient(strategy.address()!.port);
      return client;
    },
  };
}

describe.each<TransportName>(['nest-tcp', 'once'])(
  'a hybrid app with a %s microservice (NestJS’s hybrid specs)',
  (transport) => {
    let root: string;
    let nodes = 0;
    let app: INestApplication | undefined;
    let client: ClientProxy | undefined;

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'once-contract-hybrid-'));
    });
    afterEach(async () => {
      await client?.close();
      await app?.close();
      client = undefined;
      app = undefined;
    });
    afterAll(async () => {
      if (root) await rm(root, { recursive: true, force: true });
    });

    describe('global-config-applied: given spies given to the microservice’s useGlobal… methods', () => {
      beforeEach(async () => {
        Object.assign(called, { guard: false, filter: false, interceptor: false, pipe: false });
        const made = await hybrid(transport, join(root, `node-${++nodes}`));
        app = made.app;
        made.microservice.useGlobalGuards(new SpyGuard());
        made.microservice.useGlobalFilters(new SpyFilter());
        made.microservice.useGlobalInterceptors(new SpyInterceptor());
        made.microservice.useGlobalPipes(new SpyPipe());
        client = await made.start();
      });

      it('when a call is made, then the guard, the interceptor and the pipe run', async () => {
        await expect(firstValueFrom(client!.send({ cmd: 'sum' }, [1, 2, 3, 4, 5]))).resolves.toBe(
          15,
        );
        expect(called).toMatchObject({ guard: true, interceptor: true, pipe: true });
      });

      it('when a handler throws, then the filter runs, and the client errors with its answer as it is (a string here)', async () => {
        await expect(firstValueFrom(client!.send({ cmd: 'exception' }, {}))).rejects.toBe('failed');
        expect(called.filter).toBe(true);
      });
    });

    describe('hybrid-shutdown-hooks', () => {
      it('when the connected microservice enables shutdown hooks and the app closes, then its signal listener is gone', async () => {
        const baseline = process.listenerCount('SIGTERM');
        const made = await hybrid(transport, join(root, `node-${++nodes}`));
        app = made.app;

        made.microservice.enableShutdownHooks(['SIGTERM']);
        expect(process.listenerCount('SIGTERM')).toBe(baseline + 1);
        client = await made.start();
        await client.close();
        client = undefined;
        const listeners = process.listeners('SIGTERM');
        await app.close();
        app = undefined;

        // NestJS 11.2 leaves it (removed by a later NestJS): once leaves it as TCP does.
        const left = process
          .listeners('SIGTERM')
          .filter((listener) => listeners.includes(listener));
        expect(left).toHaveLength(NEST_LEAVES_SHUTDOWN_LISTENER ? 1 : 0);
        for (const listener of process.listeners('SIGTERM').slice(baseline)) {
          process.off('SIGTERM', listener);
        }
      });
    });
  },
);
