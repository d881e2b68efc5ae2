import fc from 'fast-check';
import { type ClientId } from '@once/protocol';
import { type ClientTable } from '../client-table';
import { type CachedReply } from '../cached-reply';

/**
 * Random journal-like histories for the client table's properties: registers (some refused
 * as another user's), replies (some fenced, ahead or gapped, so refused by `applicable`),
 * removes, limit changes and expiries, over eight clients. Shared by the replay property
 * and the per-entry record property, so both run the same histories.
 */

/** Eight client ids whose index order is not their numeric order, so tie-breaks show. */
export const CLIENTS: readonly ClientId[] = [
  '0000000000000000000000000000b00b',
  'f0000000000000000000000000000001',
  '00000000000000000000000000000003',
  '7fffffffffffffffffffffffffffffff',
  '00000000000000010000000000000000',
  '0000000000000000000000000000000a',
  'ffffffffffffffffffffffffffffffff',
  '00000000000000000000000000000001',
];

/** The request checksum of step value `n` (never all zero). */
export const sum = (n: number): Buffer => Buffer.alloc(16, n + 1);

export type Step =
  | { kind: 'register'; client: number; user: number }
  | {
      kind: 'reply';
      client: number;
      sessionDelta: number;
      requestDelta: number;
      checksum: number;
      body: number;
    }
  | { kind: 'remove'; client: number }
  | { kind: 'limits'; capacity: number; ring: number }
  | { kind: 'expire'; back: number };

const clientArb = fc.integer({ min: 0, max: CLIENTS.length - 1 });

export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('register' as const),
      client: clientArb,
      user: fc.integer({ min: 0, max: 2 }),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('reply' as const),
      client: clientArb,
      sessionDelta: fc.constantFrom(0, 0, 0, -1, 1),
      requestDelta: fc.constantFrom(1, 1, 1, 0, 2),
      checksum: fc.integer({ min: 0, max: 2 }),
      body: fc.integer({ min: 0, max: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), client: clientArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('limits' as const),
      capacity: fc.integer({ min: 1, max: 5 }),
      ring: fc.integer({ min: 1, max: 4 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('expire' as const),
      back: fc.integer({ min: 0, max: 3000 }),
    }),
  },
);

/** A step with its journal position: ops strictly grow, timestamps never decrease. */
export const journalArb = fc.array(fc.tuple(stepArb, fc.integer({ min: 0, max: 400 })), {
  maxLength: 60,
});

/** The fields every entry-like value (the table's, a model's) has. */
export interface EntryLike {
  readonly client: ClientId;
  readonly userId: number;
  readonly epoch: number;
  readonly watermark: number;
  readonly latestCommitOp: number;
  readonly latestCommitTimestamp: bigint;
  readonly replies: readonly Pick<CachedReply, 'request' | 'requestChecksum' | 'reply'>[];
}

/** Comparable plain form of an entry (the table's or a model's). */
export function view(entry: EntryLike): unknown {
  return {
    client: entry.client,
    userId: entry.userId,
    epoch: entry.epoch,
    watermark: entry.watermark,
    latestCommitOp: entry.latestCommitOp,
    latestCommitTimestamp: entry.latestCommitTimestamp,
    replies: entry.replies.map((r) => [
      r.request,
      r.requestChecksum.toString('hex'),
      r.reply.toString(),
    ]),
  };
}

/**
 * The engine's side of a step on a real table; returns what the engine would see (entries
 * in their {@link view} form). A reply is committed only when `applicable` says ok.
 */
export function runTable(table: ClientTable, step: Step, op: number, timestamp: bigint): unknown {
  switch (step.kind) {
    case 'register': {
      const result = table.commitRegister(op, timestamp, CLIENTS[step.client], step.user);
      return result.kind === 'registered'
        ? { ...result, evicted: result.evicted && view(result.evicted) }
        : result;
    }
    case 'reply': {
      const client = CLIENTS[step.client];
      const entry = table.get(client);
      const session = (entry?.epoch ?? 1) + step.sessionDelta;
      const request = (entry?.watermark ?? 0) + step.requestDelta;
      const verdict = table.applicable(client, session, request);
      if (verdict === 'ok') {
        table.commitReply(
          op,
          timestamp,
          client,
          session,
          request,
          sum(step.checksum),
          Buffer.from(`${client}:${request}:${step.body}`),
        );
      }
      return verdict;
    }
    case 'remove': {
      const removed = table.remove(CLIENTS[step.client]);
      return removed && view(removed);
    }
    case 'limits':
      return table.setLimits({ capacity: step.capacity, ring: step.ring }).map(view);
    case 'expire':
      return table.expireBefore(timestamp - BigInt(step.back)).map(view);
  }
}
