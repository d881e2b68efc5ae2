import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, type DynamicModule, type INestMicroservice, Module } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { MessagePattern } from '@nestjs/microservices';
import {
  Admit,
  type ApplyContext,
  Command,
  type ModuleState,
  ONCE_AUTHENTICATOR,
  OnceModule,
  Query,
  ReplicatedState,
} from '@once/framework';
import { OnceRuntimeMissingError, OnceServer } from '@once/gateway';
import { Command as FrameCommand, Status, randomClientId } from '@once/protocol';
import { CommandRefusedError, OnceClient } from '@once/sdk';
import {
  RawClient,
  StaticAuthenticator,
  bodyJson,
  outcomeOf,
  registrationOf,
  eventually,
  withJournalHooks,
} from '@once/testing';
import { OrdersModule } from '../fixtures/orders/orders.module';
import { type Order } from '../fixtures/orders/orders.state';
import { Gate } from './support/gate';
import { SuspendedTenantGuard } from './support/suspended-tenant.guard';
import { listenUntilReady } from '../support/listen-until-ready';

/** Holds the journal's group commit: entries admitted but not yet durable. */
const journalWrites = new Gate();
/** Holds the admission step of `notes.add`. */
const noteAdmissions = new Gate();

@ReplicatedState('notes')
class NotesState implements ModuleState {
  readonly notes: string[] = [];
  toSnapshot(): string[] {
    return [...this.notes];
  }
  fromSnapshot(snapshot: unknown): void {
    this.notes.splice(0, this.notes.length, ...(snapshot as string[]));
  }
}

/** A command whose admission step is async (as a password hash would be). */
@Controller()
class NotesController {
  constructor(private readonly state: NotesState) {}

  @Admit('notes.add')
  async admit(data: { text: string }): Promise<{ text: string }> {
    await noteAdmissions.pass();
    return { text: data.text };
  }

  @Command('notes.add')
  add(data: { text: string }, ctx: ApplyContext): { text: string; op: number } {
    this.state.notes.push(data.text);
    return { text: data.text, op: ctx.op };
  }

  @Query('notes.all')
  all(): string[] {
    return [...this.state.notes];
  }
}

@Module({ controllers: [NotesController], providers: [NotesState] })
class NotesModule {}

/** The orders module served by a microservice-only application. */
@Module({})
class AppModuleWithOrders {
  static register(dataDir: string): DynamicModule {
    return {
      module: AppModuleWithOrders,
      imports: [
        OnceModule.forRoot(
          withJournalHooks({ dataDir }, { beforeWrite: () => journalWrites.pass() }),
        ),
        OrdersModule,
        NotesModule,
      ],
      providers: [
        { provide: ONCE_AUTHENTICATOR, useValue: new StaticAuthenticator({ alice: 'pw' }) },
        { provide: APP_GUARD, useClass: SuspendedTenantGuard },
      ],
    };
  }
}

/** An ordinary microservice app without OnceModule. */
@Controller()
class PlainController {
  @MessagePattern('plain.echo')
  echo(data: unknown): unknown {
    return data;
  }
}

@Module({ controllers: [PlainController] })
class PlainModule {}

interface Started {
  readonly app: INestMicroservice;
  readonly port: number;
}

async function startOrdersService(dataDir: string): Promise<Started> {
  const strategy = new OnceServer({ port: 0 });
  const app = await NestFactory.createMicroservice(AppModuleWithOrders.register(dataDir), {
    strategy,
    logger: false,
  });
  await listenUntilReady(app);
  return { app, port: strategy.address()!.port };
}

const connectAlice = (port: number) =>
  OnceClient.connect({ port, username: 'alice', password: 'pw' });

describe('given NestFactory.createMicroservice(AppModuleWithOrders, { strategy: new OnceServer() })', () => {
  let root: string;
  let running: Started | undefined;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'once-microservice-'));
  });
  afterEach(async () => {
    journalWrites.open();
    noteAdmissions.open();
    await running?.app.close();
    running = undefined;
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('when an OnceClient sends commands and queries, then the team module serves them with its whole pipeline', async () => {
    running = await startOrdersService(join(root, 'serve'));
    const alice = await connectAlice(running.port);
    try {
      const placed = await alice.command<Order>('orders.place', {
        item: ' Bolt',
        quantity: 2,
        tenant: 'acme',
      });
      expect(placed).toMatchObject({ seq: 1, item: 'bolt', quantity: 2, placedBy: 1 });
      await expect(alice.query('orders.get', { seq: '1' })).resolves.toEqual({
        ...placed,
        viewer: 1,
      });
      const suspended = alice.command('orders.place', {
        item: 'bolt',
        quantity: 1,
        tenant: 'suspended',
      });
      await expect(suspended).rejects.toBeInstanceOf(CommandRefusedError);
      await expect(suspended).rejects.toMatchObject({ code: 'TENANT_SUSPENDED' });
      await expect(alice.query('orders.all', {})).resolves.toEqual([placed]);
    } finally {
      await alice.close();
    }
  });

  it('when app.close() starts while a command waits for its journal write, then the command is answered and committed once', async () => {
    const dataDir = join(root, 'close-journal');
    running = await startOrdersService(dataDir);
    const alice = await connectAlice(running.port);
    const probe = await RawClient.connect(running.port);
    try {
      journalWrites.close();
      const pending = alice.command<Order>('orders.place', {
        item: 'gear',
        quantity: 1,
        tenant: 'acme',
      });
      await eventually(() => journalWrites.waiting > 0, 'the order waiting for its journal write');

      const closing = running.app.close();
      running = undefined;
      // The node stops taking new work while the order is still in flight.
      expect(bodyJson(await probe.ping())).toMatchObject({ ready: false });
      journalWrites.open();

      const placed = await pending;
      expect(placed).toMatchObject({ seq: 1, item: 'gear' });
      await closing;

      running = await startOrdersService(dataDir);
      const again = await connectAlice(running.port);
      await expect(again.query('orders.all', {})).resolves.toEqual([placed]);
      await again.close();
    } finally {
      probe.destroy();
      await alice.close({ force: true });
    }
  });

  it('when app.close() starts while a command is still in its async admission step, then the command is answered before the connection closes', async () => {
    const dataDir = join(root, 'close-admission');
    running = await startOrdersService(dataDir);
    const raw = await RawClient.connect(running.port);
    try {
      const client = randomClientId();
      const { epoch } = registrationOf(await raw.register(client, 'alice', 'pw'));
      noteAdmissions.close();
      const answered = raw.command(client, epoch, 1, 'notes.add', { text: 'in flight' });
      await eventually(() => noteAdmissions.waiting > 0, 'notes.add in its admission step');

      const closing = running.app.close();
      running = undefined;
      noteAdmissions.open();

      const reply = await answered;
      await closing;
      expect(reply.header).toMatchObject({ command: FrameCommand.Reply, request: 1 });
      // Answered either way: committed (OK) or refused before the journal (NOT_READY).
      expect([Status.Ok, Status.NotReady]).toContain(reply.header.status);

      running = await startOrdersService(dataDir);
      const alice = await connectAlice(running.port);
      const notes = await alice.query<string[]>('notes.all', {});
      await alice.close();
      if (reply.header.status === Number(Status.Ok)) {
        expect(outcomeOf(reply)).toMatchObject({ ok: true, result: { text: 'in flight' } });
        expect(notes).toEqual(['in flight']);
      } else {
        expect(notes).toEqual([]);
      }
    } finally {
      raw.destroy();
    }
  });

  it('given an app that does not import OnceModule, when its OnceServer listens, then listen rejects with ONCE_RUNTIME_MISSING', async () => {
    const app = await NestFactory.createMicroservice(PlainModule, {
      strategy: new OnceServer({ port: 0 }),
      logger: false,
    });
    try {
      const listening = app.listen();
      await expect(listening).rejects.toBeInstanceOf(OnceRuntimeMissingError);
      await expect(listening).rejects.toMatchObject({ code: 'ONCE_RUNTIME_MISSING' });
    } finally {
      await app.close();
    }
  });
});
