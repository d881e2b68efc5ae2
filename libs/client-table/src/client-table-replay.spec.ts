import fc from 'fast-check';
import { ZERO_CHECKSUM } from '@once/protocol/internal';
import { type ClientId } from '@once/protocol';
import { ClientTable } from './client-table';
import { type CheckResult } from './check-result';
import { encodeTableSnapshot } from './table-snapshot-codec';
import {
  CLIENTS,
  journalArb,
  runTable,
  sum,
  view,
  type Step,
} from './__fixtures__/table-history.fixture';

/**
 * Replay and restore as the engine uses them: random journal-like sequences applied to
 * (1) a table directly, (2) a table restored from a snapshot taken at a random point and
 * then continued, and (3) a naive reference model written straight from PROTOCOL.md.
 * All three must agree on every result, every check() answer and (1, 2) every byte.
 */

const NEVER_REGISTERED: ClientId = '1234567890abcdef1234567890abcdef';

// ---------------------------------------------------------------- reference model

interface ModelReply {
  request: number;
  requestChecksum: Buffer;
  reply: Buffer;
}
interface ModelEntry {
  client: ClientId;
  userId: number;
  epoch: number;
  watermark: number;
  latestCommitOp: number;
  latestCommitTimestamp: bigint;
  replies: ModelReply[];
}

const byEvictionOrder = (a: ModelEntry, b: ModelEntry): number =>
  a.latestCommitOp - b.latestCommitOp || (a.client < b.client ? -1 : a.client > b.client ? 1 : 0);

/** The client table the slow, obvious way: a list, sorted when an order matters. */
class ModelTable {
  entries: ModelEntry[] = [];

  constructor(
    public capacity: number,
    public ring: number,
  ) {}

  find(client: ClientId): ModelEntry | undefined {
    return this.entries.find((entry) => entry.client === client);
  }

  sorted(): ModelEntry[] {
    return [...this.entries].sort(byEvictionOrder);
  }

  private evictOldest(): ModelEntry {
    const victim = this.sorted()[0];
    this.entries = this.entries.filter((entry) => entry !== victim);
    return victim;
  }

  register(op: number, timestamp: bigint, client: ClientId, userId: number): unknown {
    const found = this.find(client);
    if (found && found.userId !== userId)
      return { kind: 'owned-by-other-user', ownerUserId: found.userId };
    if (found) {
      const previousEpoch = found.epoch;
      Object.assign(found, { epoch: op, latestCommitOp: op, latestCommitTimestamp: timestamp });
      return {
        kind: 'registered',
        epoch: op,
        watermark: found.watermark,
        created: false,
        previousEpoch,
        evicted: undefined,
      };
    }
    const evicted = this.entries.length >= this.capacity ? this.evictOldest() : undefined;
    this.entries.push({
      client,
      userId,
      epoch: op,
      watermark: 0,
      latestCommitOp: op,
      latestCommitTimestamp: timestamp,
      replies: [],
    });
    return {
      kind: 'registered',
      epoch: op,
      watermark: 0,
      created: true,
      previousEpoch: undefined,
      evicted: evicted && view(evicted),
    };
  }

  applicable(client: ClientId, session: number, request: number): string {
    const entry = this.find(client);
    if (!entry) return 'no-session';
    if (session < entry.epoch) return 'session-too-low';
    if (session > entry.epoch) return 'epoch-ahead';
    return request === entry.watermark + 1 ? 'ok' : 'not-next';
  }

  reply(
    op: number,
    timestamp: bigint,
    client: ClientId,
    request: number,
    requestChecksum: Buffer,
    reply: Buffer,
  ): void {
    const entry = this.find(client)!;
    entry.watermark = request;
    entry.replies = [...entry.replies, { request, requestChecksum, reply }].slice(-this.ring);
    entry.latestCommitOp = op;
    entry.latestCommitTimestamp = timestamp;
  }

  remove(client: ClientId): ModelEntry | undefined {
    const entry = this.find(client);
    this.entries = this.entries.filter((other) => other !== entry);
    return entry;
  }

  setLimits(capacity: number, ring: number): ModelEntry[] {
    this.capacity = capacity;
    this.ring = ring;
    const evicted: ModelEntry[] = [];
    while (this.entries.length > capacity) evicted.push(this.evictOldest());
    for (const entry of this.entries) entry.replies = entry.replies.slice(-ring);
    return evicted;
  }

  expireBefore(cutoff: bigint): ModelEntry[] {
    const expired = this.sorted().filter((entry) => entry.latestCommitTimestamp < cutoff);
    this.entries = this.entries.filter((entry) => !expired.includes(entry));
    return expired;
  }

  /** PROTOCOL.md's COMMAND table, read literally. */
  check(
    client: ClientId,
    session: number,
    request: number,
    checksum: Buffer,
    highestAdmitted?: number,
  ): CheckResult {
    const entry = this.find(client);
    if (!entry) return { kind: 'no-session' };
    const { epoch, watermark } = entry;
    if (session < epoch) return { kind: 'session-too-low', epoch, watermark };
    if (session > epoch) return { kind: 'epoch-ahead', epoch, watermark };
    if (request === 0) return { kind: 'invalid-request' };
    const nextExpected = (highestAdmitted ?? watermark) + 1;
    if (request <= watermark) {
      const cached = entry.replies.find((r) => r.request === request);
      if (!cached) return { kind: 'already-applied', watermark };
      return cached.requestChecksum.equals(checksum)
        ? { kind: 'duplicate', reply: cached.reply }
        : { kind: 'conflict', watermark };
    }
    if (request < nextExpected) return { kind: 'in-flight' };
    if (request === nextExpected) return { kind: 'new' };
    return { kind: 'gap', watermark, nextExpected };
  }
}

// ---------------------------------------------------------------- running a journal

function runModel(model: ModelTable, step: Step, op: number, timestamp: bigint): unknown {
  switch (step.kind) {
    case 'register':
      return model.register(op, timestamp, CLIENTS[step.client], step.user);
    case 'reply': {
      const client = CLIENTS[step.client];
      const entry = model.find(client);
      const session = (entry?.epoch ?? 1) + step.sessionDelta;
      const request = (entry?.watermark ?? 0) + step.requestDelta;
      const verdict = model.applicable(client, session, request);
      if (verdict === 'ok') {
        model.reply(
          op,
          timestamp,
          client,
          request,
          sum(step.checksum),
          Buffer.from(`${client}:${request}:${step.body}`),
        );
      }
      return verdict;
    }
    case 'remove': {
      const removed = model.remove(CLIENTS[step.client]);
      return removed && view(removed);
    }
    case 'limits':
      return model.setLimits(step.capacity, step.ring).map(view);
    case 'expire':
      return model.expireBefore(timestamp - BigInt(step.back)).map(view);
  }
}

/** Every check() a gateway could ask about every client, against all three. */
function probe(direct: ClientTable, resumed: ClientTable, model: ModelTable): void {
  // Collected, then compared once: a deep comparison per call would dominate the run time.
  const answers: [unknown[], unknown[], unknown[]] = [[], [], []];
  for (const client of [...CLIENTS, NEVER_REGISTERED]) {
    const entry = direct.get(client);
    const epoch = entry?.epoch ?? 1;
    const watermark = entry?.watermark ?? 0;
    for (const session of [0, epoch - 1, epoch, epoch + 1]) {
      for (let request = Math.max(0, watermark - 5); request <= watermark + 3; request++) {
        for (const highestAdmitted of [undefined, watermark, watermark + 2]) {
          for (const checksum of [0, 1, 2]) {
            const args = [client, session, request, sum(checksum), highestAdmitted] as const;
            answers[0].push(model.check(...args));
            answers[1].push(direct.check(...args));
            answers[2].push(resumed.check(...args));
          }
        }
        answers[1].push(direct.applicable(client, session, request));
        answers[2].push(resumed.applicable(client, session, request));
        answers[0].push(model.applicable(client, session, request));
      }
    }
  }
  expect(answers[1]).toEqual(answers[0]);
  expect(answers[2]).toEqual(answers[0]);
}

/** A table that starts with three entries tied on latestCommitOp 1, as only a snapshot can hold. */
function tiedStart(): { bytes: Buffer; model: () => ModelTable } {
  const tied = [5, 2, 7].map((index, user) => ({
    client: CLIENTS[index],
    userId: user,
    epoch: 1,
    watermark: 0,
    watermarkChecksum: ZERO_CHECKSUM,
    latestCommitOp: 1,
    latestCommitTimestamp: 0n,
    replies: [],
  }));
  return {
    bytes: encodeTableSnapshot({ capacity: 3, ring: 2, entries: tied }),
    model: () => {
      const model = new ModelTable(3, 2);
      model.entries = tied.map((entry) => ({ ...entry, replies: [] }));
      return model;
    },
  };
}

describe('ClientTable replay', () => {
  it('direct, restored-then-continued and the reference model agree on everything', () => {
    fc.assert(
      fc.property(journalArb, fc.nat(), fc.boolean(), (journal, splitSeed, fromTies) => {
        const start = tiedStart();
        const fresh = (): ClientTable =>
          fromTies ? ClientTable.restore(start.bytes) : new ClientTable({ capacity: 3, ring: 2 });
        const model = fromTies ? start.model() : new ModelTable(3, 2);
        const direct = fresh();
        let resumed = fresh();
        const split = splitSeed % (journal.length + 1);
        let timestamp = 1000n;
        journal.forEach(([step, dt], index) => {
          if (index === split) resumed = ClientTable.restore(resumed.snapshot());
          const op = index + 2;
          timestamp += BigInt(dt);
          const expected = runModel(model, step, op, timestamp);
          expect(runTable(direct, step, op, timestamp)).toEqual(expected);
          expect(runTable(resumed, step, op, timestamp)).toEqual(expected);
        });
        if (split === journal.length) resumed = ClientTable.restore(resumed.snapshot());

        expect(resumed.snapshot()).toEqual(direct.snapshot());
        expect([...direct.entries()].map(view)).toEqual(model.sorted().map(view));
        expect([direct.capacity, direct.ring, direct.size]).toEqual([
          model.capacity,
          model.ring,
          model.entries.length,
        ]);
        probe(direct, resumed, model);
      }),
      { numRuns: 200 },
    );
  });
});
