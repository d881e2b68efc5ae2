import { Test, type TestingModule } from '@nestjs/testing';
import { type ApplyOutcome, type Engine } from '@once/engine/internal';
import { OnceModule, OnceRuntime } from '@once/framework';
import { type ClientId, parseReplyBody, randomClientId, type ReplyOutcome } from '@once/protocol';
import { commandDraft, registerDraft } from '../../../engine/src/__fixtures__/entry-drafts.fixture';
import { submit, tempDataDir } from '../../../engine/src/__fixtures__/test-node.fixture';
import { adminGenesis } from '../admin-genesis';
import { UsersModule } from '../users.module';

export const ADMIN_PASSWORD = 'admin-secret';

/** OnceModule and UsersModule alone in a NestJS testing module, on a temporary data directory. */
export interface UsersNode {
  readonly module: TestingModule;
  readonly runtime: OnceRuntime;
  /** A session of `userId` on a fresh client id, registered through the journal. */
  session(userId: number): Promise<UsersSession>;
  /** Closes the node and opens it again on the same data directory. */
  restart(): Promise<UsersNode>;
  close(): Promise<void>;
}

export async function startUsersNode(dir?: string): Promise<UsersNode> {
  const temp = dir ? undefined : await tempDataDir('once-users-');
  const dataDir = dir ?? temp!.dir;
  const module = await Test.createTestingModule({
    imports: [
      OnceModule.forRoot({
        dataDir,
        genesis: adminGenesis(ADMIN_PASSWORD),
        progressIntervalMs: 60_000,
      }),
      UsersModule,
    ],
  }).compile();
  module.useLogger(false);
  await module.init();
  const runtime = module.get(OnceRuntime);
  await runtime.whenReady();
  return {
    module,
    runtime,
    session: (userId) => UsersSession.register(runtime.engine, userId),
    restart: async () => {
      await module.close();
      return startUsersNode(dataDir);
    },
    close: async () => {
      await module.close();
      await temp?.cleanup();
    },
  };
}

/** Drives the apply path the way the gateway does: admission, then journal, then apply. */
export class UsersSession {
  private constructor(
    private readonly engine: Engine,
    readonly client: ClientId,
    readonly userId: number,
    readonly epoch: number,
  ) {}

  static async register(engine: Engine, userId: number): Promise<UsersSession> {
    const client = randomClientId();
    const outcome = await submit(engine, registerDraft(client, userId));
    if (!outcome.registered) throw new Error(`REGISTER of ${client} did not commit a session`);
    return new UsersSession(engine, client, userId, outcome.registered.epoch);
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
    const request = (this.engine.table.get(this.client)?.watermark ?? 0) + 1;
    const draft = {
      ...commandDraft(this.client, this.userId, this.epoch, request, pattern, data),
      body,
    };
    return submit(this.engine, draft);
  }
}
