import { randomBytes } from 'node:crypto';
import { type ClientId } from '@once/protocol';
import { type ApplyContext } from '../apply-context';
import { CommandError } from '../command.error';
import { type CommandHandler } from '../command-handler';
import { KeyedState } from '../keyed';
import { type ConnectionScopedState, type ModuleState } from '../module-state';

/** A key-value map: the simplest deterministic module. */
export class KvState implements ModuleState {
  readonly map = new Map<string, string>();
  toSnapshot(): unknown {
    return [...this.map];
  }
  fromSnapshot(snapshot: unknown): void {
    this.map.clear();
    for (const [key, value] of snapshot as Array<[string, string]>) this.map.set(key, value);
  }
}

/** Keyed records: the state API whose contents live in the data directory's LevelDB. */
export class KeyedKvState extends KeyedState {
  readonly items = this.map<{ value: string; writes: number }>('items');
  readonly seen = this.set('seen');
}

/** Members that belong to a live connection (released by the engine). */
export class MembershipState implements ConnectionScopedState {
  readonly members = new Set<ClientId>();
  releaseClient(client: ClientId, _ctx: ApplyContext): void {
    this.members.delete(client);
  }
  holders(): ClientId[] {
    return [...this.members].sort();
  }
  toSnapshot(): unknown {
    return [...this.members];
  }
  fromSnapshot(snapshot: unknown): void {
    this.members.clear();
    for (const client of snapshot as ClientId[]) this.members.add(client);
  }
}

export interface SampleModules {
  readonly kv: KvState;
  readonly membership: MembershipState;
  readonly keyed: KeyedKvState;
  readonly commands: CommandHandler[];
  readonly states: Array<[string, ModuleState]>;
}

/**
 * Handlers covering every apply outcome: a result, a refusal, a crash, an
 * async handler (refused), an admission step with randomness (its output is
 * journaled, so replay does not redraw it), a connection-scoped membership,
 * and an echo of the apply context.
 */
export function sampleModules(): SampleModules {
  const kv = new KvState();
  const membership = new MembershipState();
  const keyed = new KeyedKvState();
  const commands: CommandHandler[] = [
    {
      pattern: 'keyed.put',
      apply(data) {
        const { key, value } = data as { key: string; value: string };
        const previous = keyed.items.get(key);
        keyed.items.set(key, { value, writes: (previous?.writes ?? 0) + 1 });
        keyed.seen.add(value);
        return { previous: previous ?? null, size: keyed.items.size, seen: keyed.seen.size };
      },
    },
    {
      pattern: 'keyed.delete',
      apply(data) {
        const { key } = data as { key: string };
        return { deleted: keyed.items.delete(key), size: keyed.items.size };
      },
    },
    {
      pattern: 'kv.put',
      apply(data) {
        const { key, value } = data as { key: string; value: string };
        const previous = kv.map.get(key) ?? null;
        kv.map.set(key, value);
        return { previous };
      },
    },
    {
      pattern: 'kv.sealed',
      admit: (data) => ({ ...(data as object), nonce: randomBytes(4).toString('hex') }),
      apply(data) {
        const { key, value, nonce } = data as { key: string; value: string; nonce: string };
        kv.map.set(key, `${value}:${nonce}`);
        return { stored: `${value}:${nonce}` };
      },
    },
    {
      // An admission step that vets the value: `bad` is refused, `crash` is a bug in the step.
      pattern: 'kv.vetted',
      admit: (data) => {
        const { value } = data as { value: string };
        if (value === 'bad') throw new CommandError('KV_VALUE_REFUSED', 'the value is refused');
        if (value === 'crash') throw new Error('admission bug with a secret in its message');
        return data;
      },
      apply(data) {
        const { key, value } = data as { key: string; value: string };
        kv.map.set(key, value);
        return { stored: value };
      },
    },
    {
      pattern: 'kv.refuse',
      apply() {
        throw new CommandError('KV_REFUSED', 'refused on purpose');
      },
    },
    {
      pattern: 'kv.crash',
      apply() {
        throw new Error('boom');
      },
    },
    {
      pattern: 'kv.async',
      apply: () => Promise.resolve(1),
    },
    {
      pattern: 'member.join',
      apply(_data, ctx) {
        membership.members.add(ctx.client);
        return { members: membership.members.size };
      },
    },
    {
      pattern: 'ctx.echo',
      apply: (_data, ctx) => ({
        op: ctx.op,
        timestamp: String(ctx.timestamp),
        userId: ctx.userId,
        client: ctx.client,
      }),
    },
  ];
  return {
    kv,
    membership,
    keyed,
    commands,
    states: [
      ['keyed', keyed],
      ['kv', kv],
      ['membership', membership],
    ],
  };
}
