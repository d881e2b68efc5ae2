import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type OnceNodeFactory, type OnceNodeOptions, singleNode } from '@once/engine/internal';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from './decorators/command.decorator';
import { type OnceModuleOptions } from './once-module-options.interface';
import { OnceModule } from './once.module';
import { OnceRuntime } from './once-runtime';

@Controller()
class PingController {
  @Command('ping.add')
  add(): { ok: true } {
    return { ok: true };
  }
}

@Module({ controllers: [PingController] })
class PingModule {}

describe("OnceModule's node option", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'once-node-option-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('given a node factory, when the application starts, then the runtime opens its node through it with the module options', async () => {
    const seen: OnceNodeOptions[] = [];
    const factory: OnceNodeFactory = (options) => {
      seen.push(options);
      return singleNode(options);
    };
    const dataDir = join(root, 'factory');
    const app = await NestFactory.createApplicationContext(
      {
        module: class App {},
        imports: [OnceModule.forRoot({ dataDir, node: factory }), PingModule],
      },
      { logger: false },
    );
    try {
      const runtime = app.get(OnceRuntime);
      await runtime.whenReady();
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ dataDir });
      expect([...seen[0].commands].map((command) => command.pattern)).toEqual(['ping.add']);
      expect(runtime.node.cluster).toBeNull();
      expect(runtime.journal).toBe(runtime.node.localJournal);
    } finally {
      await app.close();
    }
  });

  it('given the removed cluster option, when the application starts, then it is refused with CLUSTER_OPTION_MOVED naming the node option', async () => {
    const options = {
      dataDir: join(root, 'cluster'),
      cluster: { natsServers: ['nats://127.0.0.1:4222'], nodeId: 'a' },
    } as unknown as OnceModuleOptions;
    await expect(
      NestFactory.createApplicationContext(
        { module: class App {}, imports: [OnceModule.forRoot(options), PingModule] },
        { logger: false, abortOnError: false },
      ),
    ).rejects.toMatchObject({
      code: 'CLUSTER_OPTION_MOVED',
      message: expect.stringMatching(/node: clusterNode\(/),
    });
  });
});
