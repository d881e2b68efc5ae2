import { Test, type TestingModule } from '@nestjs/testing';
import { type ApplyOutcome, type Engine } from '@once/engine/internal';
import { EntryKind } from '@once/journal';
import { OnceRuntime, type OnceModuleOptions } from '@once/framework';
import { type ClientId, parseReplyBody, randomClientId, type ReplyOutcome } from '@once/protocol';
import {
  commandDraft,
  logoutDraft,
  registerDraft,
} from '../../../../libs/engine/src/__fixtures__/entry-drafts.fixture';
import { submit, tempDataDir } from '../../../../libs/engine/src/__fixtures__/test-node.fixture';
import { AppModule, adminGenesis } from '../app.module';

export const ADMIN_PASSWORD = 'admin-secret';

/** The reference service's modules in a NestJS testing module, on a temporary data directory. */
export interface DomainApp {
  readonly dir: string;
  readonly module: TestingModule;
  readonly runtime: OnceRuntime;
  readonly engine: Engine;
  /** A session of `userId` on a fresh client id, registered through the journal. */
  session(userId: number): Promise<TestSession>;
  restart(): Promise<DomainApp>;
  close(): Promise<void>;
}

export async function startDomainApp(
  options: Partial<OnceModuleOptions> = {},
  dir?: string,
): Promise<DomainApp> {
  const temp = dir ? undefined : await tempDataDir('once-domain-');
  const dataDir = dir ?? temp!.dir;
  const module = await Test.createTestingModule({
    imports: [
      AppModule.register({
        dataDir,
        genesis: adminGenesis(ADMIN_PASSWORD),
        progressIntervalMs: 60_000,
        ...options,
      }),
    ],
  }).compile();
  module.useLogger(false);
  await module.init();
  const runtime = module.get(OnceRuntime);
  await runtime.whenReady();
  const app: DomainApp = {
    dir: dataDir,
    module,
    runtime,
    engine: runtime.engine,
    session: async (userId) => TestSession.register(runtime.engine, userId),
    restart: async () => {
      await module.close();
      return startDomainApp(options, dataDir);
    },
    close: async () => {
      await module.close();
      await temp?.cleanup();
    },
  };
  return app;
}

/** Drives the apply path the way the gateway does: admission, then journal, then apply. */
export class TestSession {
  private constructor(
    private readonly engine: Engine,
    readonly client: ClientId,
    readonly userId: number,
    readonly epoch: number,
  ) {}

  static async register(
    engine: Engine,
    userId: number,
    client = randomClientId(),
  ): Promise<TestSession> {
    const outcome = await submit(engine, registerDraft(client, userId));
    if (!outcome.registered) throw new Error(`REGISTER of ${client} did not commit a session`);
    return new TestSession(engine, client, userId, outcome.registered.epoch);
  }

  private get nextRequest(): number {
    return (this.engine.table.get(this.client)?.watermark ?? 0) + 1;
  }

  /** Runs a command through admission and apply; resolves with the outcome body. */
  async command(pattern: string, data: unknown): Promise<ReplyOutcome> {
    return parseReplyBody((await this.commandOutcome(pattern, data)).result!)!;
  }

  async commandOutcome(pattern: string, data: unknown): Promise<ApplyOutcome> {
    const body = await this.engine.prepareCommand(pattern, data, {
      pattern,
      userId: this.userId,
      client: this.client,
    });
    const draft = {
      ...commandDraft(this.client, this.userId, this.epoch, this.nextRequest, pattern, data),
      body,
    };
    return submit(this.engine, draft);
  }

  logout(): Promise<ApplyOutcome> {
    return submit(this.engine, logoutDraft(this.client, this.userId, this.epoch, this.nextRequest));
  }

  release(): Promise<ApplyOutcome> {
    return new Promise((resolve) => {
      const off = this.engine.onApplied((outcome) => {
        if (outcome.entry.client === this.client && outcome.entry.kind === EntryKind.Release) {
          off();
          resolve(outcome);
        }
      });
      this.engine.submitRelease(this.client);
    });
  }
}
