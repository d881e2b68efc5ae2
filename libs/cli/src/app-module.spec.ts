import 'reflect-metadata';
import { Controller, type DynamicModule, Injectable, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  Command,
  type ModuleState,
  OnceModule,
  type OnceModuleOptions,
  OnceRuntime,
  ReplicatedState,
} from '@once/framework';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appRootModule } from './app-module';
import { replayDataDir } from './replayed-data-dir';

@ReplicatedState('tally')
class TallyState implements ModuleState {
  total = 0;
  toSnapshot(): number {
    return this.total;
  }
  fromSnapshot(snapshot: unknown): void {
    this.total = snapshot as number;
  }
}

@Controller()
class TallyController {
  constructor(private readonly tally: TallyState) {}

  @Command('tally.add')
  add(data: { by: number }): { total: number } {
    this.tally.total += data.by;
    return { total: this.tally.total };
  }
}

@Module({ controllers: [TallyController], providers: [TallyState] })
class TallyModule {}

/** Where a team's module would keep its data: never opened by the CLI. */
const TEAM_DATA_DIR = join(tmpdir(), 'once-cli-app-module-never-opened');

/** What the module guide teaches: a root module importing OnceModule.forRoot. */
@Module({ imports: [OnceModule.forRoot({ dataDir: TEAM_DATA_DIR }), TallyModule] })
class ForRootAppModule {}

@Injectable()
class TeamConfig {
  readonly dataDir = TEAM_DATA_DIR;
}

@Module({ providers: [TeamConfig], exports: [TeamConfig] })
class TeamConfigModule {}

/** The same with forRootAsync, its options from a provider of the team's. */
@Module({
  imports: [
    OnceModule.forRootAsync({
      imports: [TeamConfigModule],
      useFactory: (config: TeamConfig) => ({ dataDir: config.dataDir }),
      inject: [TeamConfig],
    }),
    TallyModule,
  ],
})
class ForRootAsyncAppModule {}

/** OnceModule imported by a module of the team's own, which the root imports. */
@Module({ imports: [OnceModule.forRoot({ dataDir: TEAM_DATA_DIR })] })
class TeamCoreModule {}

@Module({ imports: [TeamCoreModule, TallyModule] })
class NestedAppModule {}

/** The reference service's shape: a static register(options). */
@Module({})
class RegisteringAppModule {
  static register(options: OnceModuleOptions): DynamicModule {
    return { module: RegisteringAppModule, imports: [OnceModule.forRoot(options), TallyModule] };
  }
}

describe('given a data directory a team service journaled three commands in', () => {
  let root: string;
  let dataDir: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'once-cli-app-module-'));
    dataDir = join(root, 'data');
    const app = await NestFactory.createApplicationContext(
      RegisteringAppModule.register({ dataDir }),
      { logger: false },
    );
    const runtime = app.get(OnceRuntime);
    await runtime.whenReady();
    for (const by of [1, 2, 3]) await runtime.engine.journalSystemCommand('tally.add', { by });
    await app.close();
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each<[string, Type]>([
    ['a root module importing OnceModule.forRoot', ForRootAppModule],
    ['a root module importing OnceModule.forRootAsync', ForRootAsyncAppModule],
    ['a root module importing a module that imports OnceModule.forRoot', NestedAppModule],
    ['a module with a static register(options)', RegisteringAppModule],
  ])(
    'when the CLI replays it through %s, then the replay runs over the directory it was given, with the module’s handlers',
    async (_shape, app) => {
      const replayed = await replayDataDir({ dataDir, app });
      try {
        expect(replayed.verification.snapshotMatches).toBe(true);
        expect(replayed.engine.commitOp).toBe(replayed.journal.lastOp);
        // The three tally.add entries applied (a module without their handler stops the replay).
        expect(replayed.engine.commitOp).toBeGreaterThanOrEqual(3);
      } finally {
        await replayed.close();
      }
      expect(existsSync(TEAM_DATA_DIR)).toBe(false);
    },
  );

  it('when the root module is opened for the CLI, then OnceModule gets the verification options over its own', async () => {
    const app = await NestFactory.createApplicationContext(
      appRootModule(ForRootAppModule, { dataDir, verifyOnly: true }),
      { logger: false },
    );
    try {
      const runtime = app.get(OnceRuntime);
      expect(runtime.options).toMatchObject({ dataDir, verifyOnly: true });
      await runtime.whenVerified();
    } finally {
      await app.close();
    }
  });
});
