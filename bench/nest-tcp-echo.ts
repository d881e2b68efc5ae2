import 'reflect-metadata';
import { type AddressInfo, type Server } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions, Transport } from '@nestjs/microservices';
import { Command } from 'commander';
import { nonNegativeInteger } from './cli-numbers';
import { EchoModule } from './echo.module';

/**
 * Child entry: the baseline server, NestJS's built-in TCP transport with an
 * echo @MessagePattern and the logger off, so that once's throughput can be
 * read against what plain NestJS does on the same machine in the same run.
 * Prints `listening <port>` when it accepts connections; SIGTERM stops it.
 */
async function main(): Promise<void> {
  const { port } = new Command()
    .option('--port <port>', 'TCP port (0: any free port)', nonNegativeInteger, 0)
    .parse(process.argv)
    .opts<{ port: number }>();
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(EchoModule, {
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port },
    logger: false,
  });
  await app.listen();
  const address = app.unwrap<Server>().address() as AddressInfo;
  process.stdout.write(`listening ${address.port}\n`);
  process.once('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`nest-tcp-echo: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
