import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { OnceRuntime } from '@once/framework';
import { OnceServer } from '@once/gateway';
import { OnceClient } from '@once/sdk';
import { TallyAppModule } from './support/tally-app';

/** Adds `by` through a fresh client and reads the count back. */
async function addAndCount(port: number, by: number): Promise<{ added: number; count: number }> {
  const client = await OnceClient.connect({ port, username: 'alice', password: 'pw' });
  try {
    const { count: added } = await client.command<{ count: number }>('tally.add', { by });
    return { added, count: await client.query<number>('tally.count', {}) };
  } finally {
    await client.close();
  }
}

/**
 * NestJS documents more than one way to start an application, and some of
 * them run the module hooks more than once (`init()` then `listen()`, a
 * hybrid app started with `deferInitialization`). Once opens its data
 * directory and boots its node once per application whichever path runs.
 */
describe('given a team app module with OnceModule, started along the paths NestJS documents', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'once-start-up-'));
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('when createMicroservice, then init(), then listen(), then the node opens once and serves', async () => {
    const strategy = new OnceServer({ port: 0 });
    const app = await NestFactory.createMicroservice(
      TallyAppModule.register(join(root, 'init-then-listen')),
      { strategy, logger: false },
    );
    try {
      await app.init();
      await app.listen();
      await app.get(OnceRuntime).whenReady();
      await expect(addAndCount(strategy.address()!.port, 2)).resolves.toEqual({
        added: 2,
        count: 2,
      });
    } finally {
      await app.close();
    }
  });

  it('when a hybrid app connects the microservice with deferInitialization, inits, then starts it and listens, then the node opens once and serves, and opens again after close', async () => {
    const dataDir = join(root, 'hybrid-deferred');
    for (const [by, expected] of [
      [3, 3],
      [4, 7],
    ] as const) {
      const app = await NestFactory.create(TallyAppModule.register(dataDir), { logger: false });
      const strategy = new OnceServer({ port: 0 });
      app.connectMicroservice({ strategy }, { inheritAppConfig: true, deferInitialization: true });
      try {
        await app.init();
        await app.startAllMicroservices();
        await app.listen(0, '127.0.0.1');
        await app.get(OnceRuntime).whenReady();
        await expect(addAndCount(strategy.address()!.port, by)).resolves.toEqual({
          added: expected,
          count: expected,
        });
      } finally {
        await app.close();
      }
    }
  });
});
