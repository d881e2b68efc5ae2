import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { OnceServer } from '@once/gateway';
import { AppModule } from './app.module';

/**
 * The inventory service. Settings from the environment: `ONCE_HOST`
 * (default 127.0.0.1), `ONCE_PORT` (default 7700), `ONCE_DATA_DIR` (default
 * ./data), `ONCE_ADMIN_PASSWORD` (required: the admin of a new data
 * directory) and `INVENTORY_WAREHOUSES` (default berlin,lyon).
 *
 * SIGTERM or SIGINT stops it gracefully through NestJS's shutdown hooks:
 * once finishes the commits in flight, writes a snapshot and closes the
 * journal. A SIGKILL or a power cut loses nothing acknowledged either: the
 * next start replays the journal.
 */
async function main(): Promise<void> {
  const adminPassword = process.env.ONCE_ADMIN_PASSWORD;
  if (!adminPassword) throw new Error('ONCE_ADMIN_PASSWORD is not set');
  const app = await NestFactory.createMicroservice(
    AppModule.forRoot({ dataDir: process.env.ONCE_DATA_DIR ?? './data', adminPassword }),
    {
      strategy: new OnceServer({
        host: process.env.ONCE_HOST ?? '127.0.0.1',
        port: Number(process.env.ONCE_PORT ?? 7700),
      }),
    },
  );
  app.enableShutdownHooks();
  await app.listen();
}

main().catch((error: unknown) => {
  console.error('inventory service: cannot start:', error);
  process.exit(1);
});
