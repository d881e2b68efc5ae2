import 'reflect-metadata';
import { createInterface } from 'node:readline';
import { ConsoleLogger, type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ONCE_AUTHENTICATOR, OnceModule, OnceRuntime } from '@once/framework';
import { OnceServer } from '@once/gateway';
import { StaticAuthenticator } from '@once/testing';
import { OrdersModule } from '../../fixtures/orders/orders.module';
import { EARLY_LISTENER_MARK, EARLY_LISTENER_USERS } from './early-listener';

/**
 * A hybrid app (express + the once gateway) whose once listener opens before
 * its modules initialise: `startAllMicroservices()` first, as the NestJS docs
 * show, and `listen()` (which runs module init, so opens the data directory)
 * only when the test writes a line `init` on stdin. The window between the
 * two is held open for as long as the test needs.
 *
 * Reads ONCE_DATA_DIR. Reports on stdout, one line each, prefixed with
 * EARLY_LISTENER_MARK: `{"listening": port}` once the once listener is
 * open, `{"ready": true}` once the node replayed and serves. The app's own
 * log goes to stdout and stderr too, unprefixed. SIGTERM closes the app.
 * Run it with {@link EarlyListenerProcess} (./early-listener).
 */

@Module({})
class EarlyListenerModule {
  static register(dataDir: string): DynamicModule {
    return {
      module: EarlyListenerModule,
      imports: [OnceModule.forRoot({ dataDir }), OrdersModule],
      providers: [
        { provide: ONCE_AUTHENTICATOR, useValue: new StaticAuthenticator(EARLY_LISTENER_USERS) },
      ],
    };
  }
}

const report = (message: object) =>
  process.stdout.write(`${EARLY_LISTENER_MARK}${JSON.stringify(message)}\n`);

async function main(): Promise<void> {
  const dataDir = process.env.ONCE_DATA_DIR;
  if (!dataDir) throw new Error('ONCE_DATA_DIR is not set');
  const app = await NestFactory.create(EarlyListenerModule.register(dataDir), {
    logger: new ConsoleLogger({ colors: false }),
    abortOnError: false,
  });
  const strategy = new OnceServer({ port: 0, host: '127.0.0.1' });
  app.connectMicroservice({ strategy }, { inheritAppConfig: true });
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));

  await app.startAllMicroservices();
  report({ listening: strategy.address()!.port });

  const input = createInterface({ input: process.stdin });
  for await (const line of input) if (line.trim() === 'init') break;
  input.close();

  await app.listen(0, '127.0.0.1');
  await app.get(OnceRuntime).whenReady();
  report({ ready: true });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `early listener: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
