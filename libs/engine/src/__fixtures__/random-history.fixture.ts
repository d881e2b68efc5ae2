import fc from 'fast-check';
import { type EntryDraft } from '@once/journal/internal';
import { type ClientId } from '@once/protocol';
import { clientIdFromBigInt } from '@once/protocol/internal';
import { type ApplyOutcome } from '../apply-outcome';
import { type Engine } from '../engine';
import {
  bootDraft,
  commandDraft,
  logoutDraft,
  registerDraft,
  releaseDraft,
} from './entry-drafts.fixture';

/**
 * Random histories for the replay properties: registers, commands of the
 * sample modules (some fenced, ahead, gapped or refused), logouts, releases,
 * limit changes and clock ticks, in chunks submitted together. Shared by the
 * single node's replay property and the cluster's.
 */

export const CLIENTS: ClientId[] = [1n, 2n, 3n, 4n, 5n].map((n) => clientIdFromBigInt(0x1000n + n));
const USERS = [1, 2];
export const TTL_MS = 1_000;

export type Action =
  | { t: 'register'; c: number; u: number }
  | {
      t: 'command';
      c: number;
      pattern: string;
      key: number;
      value: string;
      skew: 'none' | 'stale' | 'ahead' | 'gap';
    }
  | { t: 'logout'; c: number; skew: 'none' | 'stale' }
  | { t: 'release'; c: number }
  | { t: 'limits'; clientsMax: number; ring: number; ttl: boolean }
  | { t: 'tick'; ms: number };

const client = fc.integer({ min: 0, max: CLIENTS.length - 1 });
const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('register' as const),
      c: client,
      u: fc.integer({ min: 0, max: 1 }),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant('command' as const),
      c: client,
      pattern: fc.constantFrom(
        'kv.put',
        'keyed.put',
        'keyed.delete',
        'kv.sealed',
        'kv.refuse',
        'member.join',
        'ctx.echo',
        'no.such',
      ),
      key: fc.integer({ min: 0, max: 3 }),
      value: fc.string({ maxLength: 6 }),
      skew: fc.constantFrom('none', 'none', 'none', 'stale', 'ahead', 'gap'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('logout' as const),
      c: client,
      skew: fc.constantFrom('none', 'stale'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('release' as const), c: client }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('limits' as const),
      clientsMax: fc.integer({ min: 1, max: 4 }),
      ring: fc.integer({ min: 1, max: 3 }),
      ttl: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('tick' as const),
      ms: fc.integer({ min: 1, max: 2 * TTL_MS }),
    }),
  },
);

/** A history: chunks of actions whose drafts are submitted together (one group commit, or a few). */
export const history = fc.array(fc.array(action, { minLength: 1, maxLength: 4 }), {
  minLength: 1,
  maxLength: 25,
});

/** Drafts for a chunk, computed from the table as it stands (like concurrent requests would be). */
export async function draftsFor(
  engine: Engine,
  actions: Action[],
  clock: { now: bigint },
): Promise<EntryDraft[]> {
  const drafts: EntryDraft[] = [];
  for (const act of actions) {
    if (act.t === 'tick') {
      clock.now += BigInt(act.ms) * 1_000_000n;
      continue;
    }
    if (act.t === 'limits') {
      drafts.push(
        bootDraft({
          clientsMax: act.clientsMax,
          ring: act.ring,
          sessionTtlMs: act.ttl ? TTL_MS : 0,
        }),
      );
      continue;
    }
    const id = CLIENTS[act.c];
    if (act.t === 'register') {
      drafts.push(registerDraft(id, USERS[act.u]));
      continue;
    }
    if (act.t === 'release') {
      drafts.push(releaseDraft(id));
      continue;
    }
    const entry = engine.table.get(id);
    const userId = entry?.userId ?? 1;
    let session = entry?.epoch ?? 3;
    let request = (entry?.watermark ?? 0) + 1;
    if (act.skew === 'stale') session = Math.max(1, session - 1);
    if (act.t === 'command') {
      if (act.skew === 'ahead') session += 5;
      if (act.skew === 'gap') request += 2;
      const data = { key: `k${act.key}`, value: act.value };
      if (act.pattern === 'kv.sealed') {
        const body = await engine.prepareCommand(act.pattern, data, {
          pattern: act.pattern,
          userId,
          client: id,
        });
        drafts.push({ ...commandDraft(id, userId, session, request, act.pattern, data), body });
      } else {
        drafts.push(commandDraft(id, userId, session, request, act.pattern, data));
      }
    } else {
      drafts.push(logoutDraft(id, userId, session, request));
    }
  }
  return drafts;
}

/** One outcome as comparable text: op, reply bytes, result bytes. */
export function replyKey(outcome: ApplyOutcome): string {
  return `${outcome.entry.op}:${outcome.reply?.toString('hex') ?? '-'}:${outcome.result?.toString('hex') ?? '-'}`;
}
