import 'reflect-metadata';
import { type AddressInfo, type Server } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions, Transport } from '@nestjs/microservices';
import { Command, Option } from 'commander';
import { nonNegativeInteger, positiveInteger } from './cli-numbers';
import { DepositPeerModule } from './deposit-peer.module';
import { type DepositStore } from './deposit-store';
import { PgDepositStore, type PgDepositVariant } from './pg-deposit-store';
import { RedisDepositStore } from './redis-deposit-store';

/**
 * Child entry: a durable peer, the NestJS TCP microservice a team would
 * write for exactly-once deposits without once, its idempotency keys in
 * Redis (`--store redis`) or PostgreSQL (`--store pg`) on 127.0.0.1. Logger
 * off, like the echo baseline. Prints `listening <port>` once the store is
 * connected (and its schema created) and the transport accepts connections;
 * SIGTERM stops it.
 */
async function main(): Promise<void> {
  const options = new Command()
    .option('--port <port>', 'TCP port (0: any free port)', nonNegativeInteger, 0)
    .addOption(new Option('--store <store>').choices(['redis', 'pg']).makeOptionMandatory())
    .requiredOption(
      '--store-port <port>',
      'port of redis-server or postgres on 127.0.0.1',
      positiveInteger,
    )
    .addOption(
      new Option('--pg-variant <variant>', 'how a PostgreSQL deposit runs')
        .choices(['transaction', 'function'])
        .default('function'),
    )
    .parse(process.argv)
    .opts<{
      port: number;
      store: 'redis' | 'pg';
      storePort: number;
      pgVariant: PgDepositVariant;
    }>();
  let store: DepositStore;
  if (options.store === 'redis') {
    const redis = new RedisDepositStore(options.storePort);
    await redis.connect();
    store = redis;
  } else {
    const pg = new PgDepositStore(
      { host: '127.0.0.1', port: options.storePort, user: 'postgres', database: 'postgres' },
      options.pgVariant,
    );
    await pg.connect();
    store = pg;
  }
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(
    DepositPeerModule.withStore(store),
    { transport: Transport.TCP, options: { host: '127.0.0.1', port: options.port }, logger: false },
  );
  await app.listen();
  const address = app.unwrap<Server>().address() as AddressInfo;
  process.stdout.write(`listening ${address.port}\n`);
  process.once('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `nest-deposit-peer: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
