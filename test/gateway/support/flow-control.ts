import 'reflect-metadata';
import { type Socket } from 'node:net';
import { Controller, type DynamicModule, type INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  Admit,
  type ApplyContext,
  Command,
  type ModuleState,
  ONCE_AUTHENTICATOR,
  type OnceAuthenticator,
  OnceModule,
  OnceRuntime,
  Query,
  ReplicatedState,
} from '@once/framework';
import { type GatewayOptions, OnceServer } from '@once/gateway';
import { type JournalEntry, type JournalStore } from '@once/journal/internal';
import { type RawClient, StaticAuthenticator, withJournalHooks } from '@once/testing';
import { Gate } from '../../nest/support/gate';

/**
 * An in-process node for the flow-control tests: a tiny module (a replicated
 * list of tags, a query with a reply of any size), a journal whose group
 * writes can be held and are recorded, an admission step that can be held,
 * and the node's own end of every connection, to see what it read.
 */

export const USERNAME = 'flow';
export const PASSWORD = 'flow-pw';

/** What one group write of the journal held when it started. */
export interface GroupWrite {
  /** Entries in the group. */
  readonly entries: number;
  /** Entries appended but not durable at that moment (this group and any queued behind it). */
  readonly pending: number;
}

/** The journal's write hook: holds group writes at `gate` and records each one. */
export class JournalWrites {
  readonly gate = new Gate();
  readonly groups: GroupWrite[] = [];
  journal: JournalStore | undefined;

  readonly beforeWrite = (entryCount: number): Promise<void> => {
    this.groups.push({ entries: entryCount, pending: this.journal?.pendingCount ?? entryCount });
    return this.gate.pass();
  };

  /** The largest group and the largest pending count seen by any write since `from`. */
  peakSince(from: number): GroupWrite {
    const seen = this.groups.slice(from);
    return {
      entries: Math.max(0, ...seen.map((group) => group.entries)),
      pending: Math.max(0, ...seen.map((group) => group.pending)),
    };
  }
}

@ReplicatedState('tags')
class TagsState implements ModuleState {
  readonly tags: string[] = [];
  toSnapshot(): string[] {
    return [...this.tags];
  }
  fromSnapshot(snapshot: unknown): void {
    this.tags.splice(0, this.tags.length, ...(snapshot as string[]));
  }
}

/** Holds the admission step of `tags.add` while closed. */
export const tagAdmissions = new Gate();

/** Credential checks the node has finished (a REGISTER past them goes on to the journal at once). */
export const authentications = { finished: 0 };

/** The static users, counting each finished check in {@link authentications}. */
class CountingAuthenticator implements OnceAuthenticator {
  private readonly users = new StaticAuthenticator({ [USERNAME]: PASSWORD });

  async authenticate(username: string, password: string): Promise<number | undefined> {
    try {
      return await this.users.authenticate(username, password);
    } finally {
      authentications.finished++;
    }
  }
}

@Controller()
class TagsController {
  constructor(private readonly state: TagsState) {}

  @Admit('tags.add')
  async admit(data: { tag: string }): Promise<{ tag: string }> {
    await tagAdmissions.pass();
    return { tag: data.tag };
  }

  @Command('tags.add')
  add(data: { tag: string }, ctx: ApplyContext): { tag: string; op: number } {
    this.state.tags.push(data.tag);
    return { tag: data.tag, op: ctx.op };
  }

  @Query('tags.all')
  all(): string[] {
    return [...this.state.tags];
  }

  /** A reply of `bytes` characters. */
  @Query('blob.read')
  blob(data: { bytes: number }): string {
    return 'x'.repeat(data.bytes);
  }
}

@Module({})
class FlowControlModule {
  static register(dataDir: string, writes: JournalWrites): DynamicModule {
    return {
      module: FlowControlModule,
      imports: [
        OnceModule.forRoot(withJournalHooks({ dataDir }, { beforeWrite: writes.beforeWrite })),
      ],
      controllers: [TagsController],
      providers: [
        TagsState,
        {
          provide: ONCE_AUTHENTICATOR,
          useValue: new CountingAuthenticator(),
        },
      ],
    };
  }
}

/** The node's end of one connection: every byte it has handed to the gateway, and whether it closed. */
export class NodeEnd {
  delivered = 0;
  closed = false;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.delivered += chunk.length;
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  /** Resolves once the gateway has been handed `total` bytes (so it decoded and looked at them), or the connection closed. */
  async whenDelivered(total: number): Promise<void> {
    while (this.delivered < total && !this.closed) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private wake(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}

export interface FlowControlNode {
  readonly app: INestMicroservice;
  readonly port: number;
  readonly journal: JournalStore;
  readonly writes: JournalWrites;
  /** The node's end of every connection accepted, by the peer's port. */
  readonly ends: Map<number, NodeEnd>;
}

/** A ready node on 127.0.0.1, port 0, serving the tags module with these gateway options. */
export async function startFlowControlNode(
  dataDir: string,
  gateway: GatewayOptions,
): Promise<FlowControlNode> {
  const writes = new JournalWrites();
  const strategy = new OnceServer({ ...gateway, host: '127.0.0.1', port: 0 });
  const app = await NestFactory.createMicroservice(FlowControlModule.register(dataDir, writes), {
    strategy,
    logger: false,
  });
  const ends = new Map<number, NodeEnd>();
  try {
    await app.listen();
    const runtime = app.get(OnceRuntime);
    await runtime.whenReady();
    writes.journal = runtime.journal;
    // Runs after the gateway's own listeners: a byte counted here was already decoded.
    strategy.on('connection', (socket: Socket) => {
      ends.set(socket.remotePort!, new NodeEnd(socket));
    });
    return { app, port: strategy.address()!.port, journal: runtime.journal, writes, ends };
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
}

/** The node's end of `client`'s connection. */
export function nodeEndOf(node: FlowControlNode, client: RawClient): NodeEnd {
  const end = node.ends.get(client.socket.localPort!);
  if (!end) throw new Error(`the node has no connection from port ${client.socket.localPort}`);
  return end;
}

/** Writes `bytes` on `client`; resolves once the node's gateway has looked at them (or the node closed the connection). */
export async function deliver(
  node: FlowControlNode,
  client: RawClient,
  bytes: Buffer,
): Promise<NodeEnd> {
  const end = nodeEndOf(node, client);
  const total = end.delivered + bytes.length;
  client.write(bytes);
  await end.whenDelivered(total);
  return end;
}

/**
 * Every entry the node's journal holds after `op`, as read back from it
 * (call once what was journaled is durable): what was journaled, of which
 * kind, in op order.
 */
export async function journaledAfter(node: FlowControlNode, op: number): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  for await (const batch of node.journal.readBatches(op + 1)) entries.push(...batch);
  return entries;
}
