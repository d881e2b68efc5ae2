import 'reflect-metadata';
import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { OnceRuntime } from '@once/framework';
import { Gate } from '../../nest/support/gate';
import { HttpLedgerAppModule } from './http-ledger-app';
import { HTTP_LEDGER_MARK } from './http-ledger-process';

/**
 * The HTTP ledger app of http-ledger-app.ts as a program, so a test can
 * kill it (SIGKILL: no graceful stop, no snapshot) and start it again on
 * the same data directory. Reads ONCE_DATA_DIR and HTTP_PLATFORM
 * (`express` or `fastify`); reports `{"url": "http://127.0.0.1:<port>"}`
 * on stdout, prefixed with HTTP_LEDGER_MARK, once the node serves.
 */
async function main(): Promise<void> {
  const dataDir = process.env.ONCE_DATA_DIR;
  if (!dataDir) throw new Error('ONCE_DATA_DIR is not set');
  const module = HttpLedgerAppModule.register(dataDir, new Gate());
  const app =
    process.env.HTTP_PLATFORM === 'fastify'
      ? await NestFactory.create(module, new FastifyAdapter(), { logger: ['error', 'warn'] })
      : await NestFactory.create(module, { logger: ['error', 'warn'] });
  await app.listen(0, '127.0.0.1');
  await app.get(OnceRuntime).whenReady();
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  process.stdout.write(
    `${HTTP_LEDGER_MARK}${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
