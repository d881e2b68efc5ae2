import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type DynamicModule, type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { OnceModule, OnceRuntime } from '@once/framework';
import { withJournalHooks } from '@once/testing';
import { HttpLedgerModule } from '../../fixtures/http-ledger/http-ledger.module';
import { Gate } from '../../nest/support/gate';

/** The NestJS HTTP platforms an `@Idempotent` route runs on. */
export type Platform = 'express' | 'fastify';

export interface HttpLedgerApp {
  readonly app: INestApplication;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
}

@Module({})
export class HttpLedgerAppModule {
  static register(dataDir: string, journalWrites: Gate): DynamicModule {
    return {
      module: HttpLedgerAppModule,
      imports: [
        OnceModule.forRoot(
          withJournalHooks({ dataDir }, { beforeWrite: () => journalWrites.pass() }),
        ),
        HttpLedgerModule,
      ],
    };
  }
}

/**
 * An HTTP application (no once gateway) with the ledger's exactly-once
 * routes, on `platform`, its journal in `dataDir`; `journalWrites` holds
 * each journal write while closed. Resolves once the node replayed and
 * serves; a failed start closes the app before rethrowing.
 */
export async function startHttpLedgerApp(
  platform: Platform,
  dataDir: string,
  journalWrites: Gate,
): Promise<HttpLedgerApp> {
  const module = HttpLedgerAppModule.register(dataDir, journalWrites);
  const app =
    platform === 'fastify'
      ? await NestFactory.create(module, new FastifyAdapter(), { logger: false })
      : await NestFactory.create(module, { logger: false });
  try {
    await app.listen(0, '127.0.0.1');
    await app.get(OnceRuntime).whenReady();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const address = (app.getHttpServer() as Server).address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${address.port}` };
}
