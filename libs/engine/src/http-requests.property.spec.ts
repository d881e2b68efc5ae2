import fc from 'fast-check';
import { EntryKind } from '@once/journal';
import { type EntryDraft, type JournalEntry } from '@once/journal/internal';
import { ZERO_CHECKSUM, ZERO_CLIENT_ID } from '@once/protocol/internal';
import { Applier } from './applier';
import { type ApplyOutcome } from './apply-outcome';
import { encodeManifest } from './code-manifest';
import { CommandRegistry } from './command-registry';
import { encodeSettings } from './engine-settings';
import { httpRequestEntryDraft, scopedKeyOf } from './http/http-request-body';
import { type HttpRequestDraft } from './http/http-request';
import { KeyedStore } from './keyed';
import { StateRegistry } from './state-registry';
import { MemoryKeyedRecords } from './__fixtures__/memory-keyed-records.fixture';
import { sampleModules } from './__fixtures__/sample-modules.fixture';

/**
 * A random history of HTTP requests (keys repeated, with the same or
 * another fingerprint, admitted or journaled past admission as a race would,
 * refused by the apply step, failing in it), limits changed by BOOT entries
 * (a small httpKeysMax, a short retention) and journal time jumping past
 * the retention, applied live; then replayed from op 1 and from every
 * snapshot taken along the way. Property: the same snapshot bytes at every
 * op and the same response for every entry, and the key table's invariants
 * after every step.
 */

const SECRET = Buffer.alloc(32, 7);
const MS = 1_000_000n;
const START_NS = 1_700_000_000_000n * MS;

/**
 * An applier whose keyed records (the key table's among them) are read
 * from `records` when given, through a cache of two records, so most reads
 * miss it; in memory only otherwise.
 */
function newApplier(records?: MemoryKeyedRecords): Applier {
  const modules = sampleModules();
  return new Applier({
    commands: new CommandRegistry(modules.commands),
    states: new StateRegistry(modules.states),
    nodeSecret: SECRET,
    keyed: new KeyedStore(records, records ? 2 : undefined),
  });
}

type Step =
  | {
      readonly t: 'http';
      readonly key: number;
      readonly variant: number;
      readonly pattern: string;
      /** False: journaled without the admission lookup (another node's entry, a new leader's). */
      readonly admit: boolean;
      readonly advanceMs: number;
    }
  | { readonly t: 'boot'; readonly keysMax: number; readonly retentionMs: number }
  | { readonly t: 'check' }
  | { readonly t: 'snapshot' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      t: fc.constant('http' as const),
      key: fc.integer({ min: 0, max: 5 }),
      variant: fc.integer({ min: 0, max: 1 }),
      pattern: fc.constantFrom('kv.put', 'kv.put', 'kv.refuse', 'kv.crash', 'ctx.echo'),
      admit: fc.boolean(),
      advanceMs: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 4000 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('boot' as const),
      keysMax: fc.integer({ min: 1, max: 4 }),
      retentionMs: fc.integer({ min: 500, max: 3000 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ t: 'check' as const }) },
  { weight: 2, arbitrary: fc.constant({ t: 'snapshot' as const }) },
);

function httpDraft(step: Extract<Step, { t: 'http' }>): EntryDraft {
  const request: HttpRequestDraft = {
    scope: `user ${step.key % 2}|POST /kv`,
    key: `key-${step.key}`,
    fingerprint: Buffer.alloc(16, step.variant + 1),
    userId: step.key % 2,
    pattern: step.pattern,
    data: { key: `k${step.key % 3}`, value: `v${step.variant}` },
    status: 201,
    refusalStatus: 422,
  };
  return httpRequestEntryDraft(request);
}

function systemDraft(kind: EntryKind, body: Buffer): EntryDraft {
  return {
    kind,
    client: ZERO_CLIENT_ID,
    session: 0,
    request: 0,
    userId: 0,
    requestChecksum: ZERO_CHECKSUM,
    body,
  };
}

/** An outcome as comparable text: the op, what the HTTP request got, any reply or result. */
function responseKey(outcome: ApplyOutcome): string {
  const http = outcome.http;
  const response = http
    ? `${http.kind}:${http.response.status}:${http.response.op}:${http.response.body.toString('hex')}`
    : '-';
  return `${outcome.entry.op}:${response}:${outcome.reply?.toString('hex') ?? '-'}:${outcome.result?.toString('hex') ?? '-'}`;
}

interface LiveRun {
  readonly entries: JournalEntry[];
  readonly responses: Map<number, string>;
  readonly snapshots: Map<number, Buffer>;
  /** The keyed records written with each snapshot, as a data directory would hold them then. */
  readonly records: Map<number, MemoryKeyedRecords>;
  readonly finalSnapshot: Buffer;
}

function runLive(steps: readonly Step[]): LiveRun {
  const disk = MemoryKeyedRecords.empty();
  const applier = newApplier(disk);
  const entries: JournalEntry[] = [];
  const responses = new Map<number, string>();
  const snapshots = new Map<number, Buffer>();
  const records = new Map<number, MemoryKeyedRecords>();
  let nowMs = 0;
  const append = (draft: EntryDraft): ApplyOutcome => {
    const entry = {
      ...draft,
      op: applier.commitOp + 1,
      timestamp: START_NS + BigInt(nowMs) * MS,
    };
    entries.push(entry);
    const outcome = applier.apply(entry);
    responses.set(entry.op, responseKey(outcome));
    return outcome;
  };
  append(systemDraft(EntryKind.Manifest, encodeManifest(applier.codeManifest)));
  for (const next of steps) {
    if (next.t === 'http') {
      nowMs += next.advanceMs;
      const draft = httpDraft(next);
      if (next.admit) {
        // Admission: a key the table holds is answered from it, nothing journaled.
        const scope = `user ${next.key % 2}|POST /kv`;
        if (applier.httpKeys.get(scopedKeyOf({ scope, key: `key-${next.key}` }))) continue;
      }
      const outcome = append(draft);
      expect(outcome.http).toBeDefined();
    } else if (next.t === 'boot') {
      append(
        systemDraft(
          EntryKind.Boot,
          encodeSettings({
            clientsMax: 8,
            ring: 2,
            sessionTtlMs: 0,
            httpKeyRetentionMs: next.retentionMs,
            httpKeysMax: next.keysMax,
          }),
        ),
      );
    } else if (next.t === 'check') {
      const body = applier.unchecked.encodeNew();
      if (body) append(systemDraft(EntryKind.ReplyCheck, body));
    } else {
      snapshots.set(applier.commitOp, applier.captureSnapshot());
      disk.checkpoint(applier.keyed, applier.commitOp);
      records.set(applier.commitOp, disk.copy());
    }
    applier.httpKeys.assertInvariants(applier.settings.httpKeysMax);
    // Every key held is within the retention at the last entry's journal time
    // (unless that entry is a BOOT: its own retention counts from the next entry).
    if (entries[entries.length - 1].kind !== EntryKind.Boot) {
      const cutoff = applier.commitTimestamp - BigInt(applier.settings.httpKeyRetentionMs) * MS;
      for (const [, record] of applier.httpKeys.entries()) {
        expect(record.timestamp).toBeGreaterThanOrEqual(cutoff);
      }
    }
  }
  const body = applier.unchecked.encodeNew();
  if (body) append(systemDraft(EntryKind.ReplyCheck, body));
  return { entries, responses, snapshots, records, finalSnapshot: applier.captureSnapshot() };
}

/** Applies `entries` on `applier`, checking every response and every snapshot against the live run's. */
function replay(applier: Applier, entries: readonly JournalEntry[], live: LiveRun): void {
  for (const entry of entries) {
    const outcome = applier.apply(entry);
    expect(responseKey(outcome)).toBe(live.responses.get(entry.op));
    const taken = live.snapshots.get(entry.op);
    if (taken) expect(applier.captureSnapshot().equals(taken)).toBe(true);
  }
  expect(applier.captureSnapshot().equals(live.finalSnapshot)).toBe(true);
}

describe('HTTP requests replay (property)', () => {
  it('given a random history of HTTP requests, when it is replayed from op 1 or from any snapshot, then every snapshot is byte-identical and every response the same', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 80, size: 'large' }), async (steps) => {
        const live = runLive(steps);
        replay(newApplier(), live.entries, live);
        for (const [op, snapshot] of live.snapshots) {
          // The sessions are records beside the snapshot: read from them, as a boot does.
          const restored = newApplier(live.records.get(op));
          expect(await restored.restoreSnapshotFromDisk(snapshot)).toBe(op);
          replay(restored, live.entries.slice(op), live);
        }
      }),
      { numRuns: 150 },
    );
  });
});
