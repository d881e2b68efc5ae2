import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type DynamicModule, type INestApplication, Module } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { ClientsModule } from '@nestjs/microservices';
import { ONCE_AUTHENTICATOR, OnceModule, OnceRuntime } from '@once/framework';
import { OnceServer } from '@once/gateway';
import { OnceClientProxy } from '@once/nest-client';
import { StaticAuthenticator } from '@once/testing';
import { OrdersModule } from '../../fixtures/orders/orders.module';
import { LEDGER, LedgerHttpController } from './ledger-http.controller';
import { SuspendedTenantGuard } from './suspended-tenant.guard';

/** Users of the hybrid app's own gateway: alice is user 1, bob user 2. */
export const USERS = { alice: 'pw', bob: 'pw' } as const;
/** The ledger client that reaches the reference service through a test proxy. */
export const LEDGER_VIA_PROXY = 'LEDGER_VIA_PROXY';

export interface HybridAppOptions {
  readonly dataDir: string;
  /** The reference service (ledger.* patterns), admin / `ledgerPassword`. */
  readonly ledgerPort: number;
  readonly ledgerPassword: string;
  /** A second ledger client ({@link LEDGER_VIA_PROXY}) on this port, when given. */
  readonly ledgerProxyPort?: number;
  /**
   * `connectMicroservice(…, { inheritAppConfig })`: NestJS applies the
   * application's global enhancers (APP_GUARD, APP_FILTER, …) to a connected
   * microservice only with it. Default true.
   */
  readonly inheritAppConfig?: boolean;
  /**
   * `init-first`: init, then start the microservices, then listen.
   * `microservices-first`: the NestJS docs' order (startAllMicroservices, then listen).
   */
  readonly startOrder?: 'init-first' | 'microservices-first';
}

@Module({})
export class HybridModule {
  static register(options: HybridAppOptions): DynamicModule {
    const ledgerOptions = {
      username: 'admin',
      password: options.ledgerPassword,
      queries: ['ledger.balance'],
      reconnect: { initialDelayMs: 10, delayMsMax: 200 },
    };
    return {
      module: HybridModule,
      imports: [
        OnceModule.forRoot({ dataDir: options.dataDir }),
        OrdersModule,
        ClientsModule.register([
          {
            name: LEDGER,
            customClass: OnceClientProxy,
            options: { ...ledgerOptions, port: options.ledgerPort },
          },
          ...(options.ledgerProxyPort === undefined
            ? []
            : [
                {
                  name: LEDGER_VIA_PROXY,
                  customClass: OnceClientProxy,
                  options: { ...ledgerOptions, port: options.ledgerProxyPort },
                },
              ]),
        ]),
      ],
      controllers: [LedgerHttpController],
      providers: [
        { provide: ONCE_AUTHENTICATOR, useValue: new StaticAuthenticator(USERS) },
        { provide: APP_GUARD, useClass: SuspendedTenantGuard },
      ],
    };
  }
}

export interface HybridApp {
  readonly app: INestApplication;
  readonly strategy: OnceServer;
  /** `http://127.0.0.1:<port>` of the HTTP side. */
  readonly httpUrl: string;
  /** Port of the app's own once gateway. */
  readonly oncePort: number;
}

/**
 * `NestFactory.create` (express) + `connectMicroservice({ strategy: new OnceServer({ port: 0 }) })`.
 * Resolves once the once node replayed its journal and serves. On a failed
 * start the app is closed (the data directory is free again) and the error rethrown.
 */
export async function startHybridApp(options: HybridAppOptions): Promise<HybridApp> {
  const app = await NestFactory.create(HybridModule.register(options), { logger: false });
  const strategy = new OnceServer({ port: 0 });
  app.connectMicroservice({ strategy }, { inheritAppConfig: options.inheritAppConfig ?? true });
  try {
    if ((options.startOrder ?? 'init-first') === 'init-first') {
      await app.init();
      await app.startAllMicroservices();
      await app.listen(0, '127.0.0.1');
    } else {
      await app.startAllMicroservices();
      await app.listen(0, '127.0.0.1');
    }
    await app.get(OnceRuntime).whenReady();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  return { app, strategy, httpUrl: `http://127.0.0.1:${port}`, oncePort: strategy.address()!.port };
}
