import { type AddressInfo, type Server as NetServer } from 'node:net';
import {
  Controller,
  type DynamicModule,
  Injectable,
  type INestApplication,
  Module,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  type ClientProxy,
  ClientProxyFactory,
  EventPattern,
  Transport,
} from '@nestjs/microservices';
import {
  Command,
  CommandError,
  ONCE_AUTHENTICATOR,
  OnceModule,
  OnceRuntime,
} from '@once/framework';
import { OnceServer } from '@once/gateway';
import { StaticAuthenticator } from '@once/testing';
import { USERS } from './once-service';
import { type ServerLog } from './server-log';

/** A once service whose @Command apply step is async: refused at bootstrap. */
@Controller()
export class AsyncSumController {
  @Command('sum.async')
  async asyncSum(data: number[]): Promise<number> {
    return Promise.resolve(data.reduce((a, b) => a + b, 0));
  }
}

/** A @Command that refuses with a CommandError, in an app with no exception filter. */
@Controller()
export class RefusingController {
  @Command('charge')
  charge(): never {
    throw new CommandError('INSUFFICIENT_FUNDS', 'the balance is too low');
  }
}

/** What the event handlers of a hybrid app saw. */
@Injectable()
export class Notifications {
  received: unknown[] = [];
}

/** NestJS's `@EventPattern('notification')`, declared without a transport, as NestJS's own app does. */
@Controller()
export class NotificationsController {
  constructor(private readonly notifications: Notifications) {}

  @EventPattern('notification')
  notified(data: unknown): void {
    this.notifications.received.push(data);
  }
}

/** A once application module around `controllers`, on `dataDir`. */
export function onceModuleWith(
  dataDir: string,
  controllers: DynamicModule['controllers'],
): DynamicModule {
  @Module({})
  class BootstrapModule {}
  return {
    module: BootstrapModule,
    imports: [OnceModule.forRoot({ dataDir })],
    controllers,
    providers: [
      Notifications,
      { provide: ONCE_AUTHENTICATOR, useValue: new StaticAuthenticator(USERS) },
    ],
  };
}

/** A hybrid app: HTTP (not listening), a NestJS TCP microservice and a once gateway. */
export interface HybridNotifications {
  readonly app: INestApplication;
  readonly tcpClient: ClientProxy;
  readonly notifications: Notifications;
  close(): Promise<void>;
}

/**
 * Starts {@link NotificationsController} in a hybrid app with both
 * transports: NestJS binds its @EventPattern (no transport argument) to both
 * servers, and it runs on TCP.
 */
export async function startHybridNotifications(
  dataDir: string,
  log: ServerLog,
): Promise<HybridNotifications> {
  const app = await NestFactory.create(onceModuleWith(dataDir, [NotificationsController]), {
    logger: log,
  });
  const tcp = app.connectMicroservice({
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port: 0 },
  });
  app.connectMicroservice({ strategy: new OnceServer({ port: 0 }) });
  try {
    await app.init();
    await app.startAllMicroservices();
    await app.get(OnceRuntime).whenReady();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const port = (tcp.unwrap<NetServer>().address() as AddressInfo).port;
  const tcpClient = ClientProxyFactory.create({
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port },
  });
  return {
    app,
    tcpClient,
    notifications: app.get(Notifications),
    close: async () => {
      await tcpClient.close();
      await app.close();
    },
  };
}
