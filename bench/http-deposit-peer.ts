import 'reflect-metadata';
import { type AddressInfo } from 'node:net';
import { type Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { Command, Option } from 'commander';
import { nonNegativeInteger, positiveInteger } from './cli-numbers';
import { HttpDepositPeerModule, type HttpPeerKind } from './http-deposit-peer.module';
import { CrashingBalances } from './crashing-balances';
import { RedisBalances } from './redis-balances';

/**
 * Child entry: an HTTP peer, a NestJS (Express) application with
 * `POST /ledger/deposit` (`{account, amount}` → 201 `{balance}`) and
 * `GET /ledger/balance/:account`, its balances in Redis on 127.0.0.1:
 * `--kind node-idempotency` makes the deposit idempotent with
 * `@node-idempotency/nestjs` (keys in the same Redis), `--kind plain` does
 * not. Logger off, like the other peers. Prints `listening <port>` once
 * Redis is connected and the server accepts connections; SIGTERM stops it,
 * and a test may SIGKILL it at any moment. `--crash-on-account <account>`
 * (crash comparisons only) makes it SIGKILL itself right after a deposit to
 * that account moved the balance, before it answers.
 */
async function main(): Promise<void> {
  const options = new Command()
    .option('--port <port>', 'HTTP port (0: any free port)', nonNegativeInteger, 0)
    .addOption(
      new Option('--kind <kind>').choices(['node-idempotency', 'plain']).makeOptionMandatory(),
    )
    .requiredOption('--redis-port <port>', 'port of redis-server on 127.0.0.1', positiveInteger)
    .option('--crash-on-account <account>', 'SIGKILL itself once a deposit to it moved the balance')
    .parse(process.argv)
    .opts<{ port: number; kind: HttpPeerKind; redisPort: number; crashOnAccount?: string }>();
  const prefix = `http-${options.kind}:`;
  const balances =
    options.crashOnAccount === undefined
      ? new RedisBalances(options.redisPort, prefix)
      : new CrashingBalances(options.redisPort, prefix, options.crashOnAccount);
  await balances.connect();
  const app = await NestFactory.create(
    HttpDepositPeerModule.create(options.kind, balances, options.redisPort),
    { logger: false },
  );
  await app.listen(options.port, '127.0.0.1');
  const address = (app.getHttpServer() as Server).address() as AddressInfo;
  process.stdout.write(`listening ${address.port}\n`);
  process.once('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `http-deposit-peer: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
