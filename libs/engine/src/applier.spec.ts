import { type EntryDraft, type JournalEntry } from '@once/journal/internal';
import { Command, EvictionReason, Status } from '@once/protocol';
import { clientIdFromBigInt, decodeHeader, mintResumeToken } from '@once/protocol/internal';
import { Applier } from './applier';
import { ApplyOrderError } from './apply-order.error';
import { CommandRegistry } from './command-registry';
import { type EngineLogger } from './engine-logger';
import { decodeEngineSnapshot } from './engine-snapshot-codec';
import { KeyedStore } from './keyed';
import { StateRegistry } from './state-registry';
import { bootDraft, commandDraft, registerDraft } from './__fixtures__/entry-drafts.fixture';
import { MemoryKeyedRecords } from './__fixtures__/memory-keyed-records.fixture';
import { type SampleModules, sampleModules } from './__fixtures__/sample-modules.fixture';

const ALICE = clientIdFromBigInt(0xa11cen);
const BOB = clientIdFromBigInt(0xb0bn);
const SECRET = Buffer.alloc(32, 7);
const SECOND_NS = 1_000_000_000n;
const START_NS = 1_700_000_000n * SECOND_NS;

/**
 * A pure applier over fresh sample modules, fed hand-made entries (no
 * journal); its keyed records in memory, or in `records` (a data
 * directory's, held in memory) when given.
 */
function harness(records?: MemoryKeyedRecords): {
  applier: Applier;
  modules: SampleModules;
  apply: Feed;
} {
  const modules = sampleModules();
  const applier = new Applier({
    commands: new CommandRegistry(modules.commands),
    states: new StateRegistry(modules.states),
    nodeSecret: SECRET,
    keyed: new KeyedStore(records),
  });
  return { applier, modules, apply: feeder(applier) };
}

type Feed = (draft: EntryDraft, atSeconds?: number) => ReturnType<Applier['apply']>;

/** Applies `draft` as the next op, at `atSeconds` after START_NS. */
function feeder(applier: Applier): Feed {
  return (draft, atSeconds = 0) =>
    applier.apply(entryOf(draft, applier.commitOp + 1, START_NS + BigInt(atSeconds) * SECOND_NS));
}

function entryOf(draft: EntryDraft, op: number, timestamp: bigint): JournalEntry {
  return { ...draft, op, timestamp };
}

function put(client: string, session: number, request: number, key: string): EntryDraft {
  return commandDraft(client, 1, session, request, 'kv.put', { key, value: `${key}!` });
}

describe('Applier', () => {
  it('applies entries in op order only, and records the op and timestamp of the last', () => {
    const { applier, apply } = harness();
    apply(bootDraft({ clientsMax: 4, ring: 2, sessionTtlMs: 0 }), 3);
    expect(applier.commitOp).toBe(1);
    expect(applier.commitTimestamp).toBe(START_NS + 3n * SECOND_NS);
    expect(applier.settings).toEqual({
      clientsMax: 4,
      ring: 2,
      sessionTtlMs: 0,
      // A BOOT body without them (an older one): the defaults.
      httpKeyRetentionMs: 86_400_000,
      httpKeysMax: 1_000_000,
    });
    expect(() => applier.apply(entryOf(registerDraft(ALICE, 1), 3, START_NS))).toThrow(
      ApplyOrderError,
    );
    expect(applier.commitOp).toBe(1);
  });

  it('answers a REGISTER with the epoch it opened and a token minted with the node secret', () => {
    const { apply } = harness();
    const outcome = apply(registerDraft(ALICE, 1));
    const body = JSON.parse(outcome.reply!.subarray(128).toString('utf8')) as {
      resumeToken: string;
    };
    expect(decodeHeader(outcome.reply!).session).toBe(1);
    expect(body.resumeToken).toBe(mintResumeToken(SECRET, ALICE, 1).toString('hex'));
  });

  it('caches the same reply bytes whether replies are encoded now or deferred', () => {
    const eager = harness();
    const deferred = harness();
    deferred.applier.setDeferredReplies(true);
    for (const { apply } of [eager, deferred]) {
      apply(registerDraft(ALICE, 1));
      apply(put(ALICE, 1, 1, 'k'));
    }
    const checksum = put(ALICE, 1, 1, 'k').requestChecksum;
    const cached = (applier: Applier) => applier.table.check(ALICE, 1, 1, checksum);
    expect(cached(deferred.applier)).toEqual(cached(eager.applier));
    expect(cached(eager.applier).kind).toBe('duplicate');
  });

  it('restores a captured snapshot into another applier, byte for byte', async () => {
    const records = MemoryKeyedRecords.empty();
    const { applier, apply } = harness(records);
    apply(bootDraft({ clientsMax: 4, ring: 2, sessionTtlMs: 60_000 }));
    apply(registerDraft(ALICE, 1));
    apply(put(ALICE, 2, 1, 'k'));
    const bytes = applier.captureSnapshot();
    // The sessions are keyed records (the sample modules have keyed state), written beside it.
    expect(decodeEngineSnapshot(bytes).sessions).toEqual({ capacity: 4, ring: 2, size: 1 });
    records.checkpoint(applier.keyed, applier.commitOp);

    const copy = harness(records.copy());
    expect(() => copy.applier.restoreSnapshot(bytes)).toThrow(/restoreSnapshotFromDisk/);
    expect(await copy.applier.restoreSnapshotFromDisk(bytes)).toBe(3);
    expect(copy.applier.restoredOp).toBe(3);
    expect(copy.applier.captureSnapshot().equals(bytes)).toBe(true);
    expect(copy.modules.kv.map.get('k')).toBe('k!');
    // It goes on from there exactly as the original does.
    const next = put(ALICE, 2, 2, 'l');
    expect(copy.apply(next).reply!.equals(apply(next).reply!)).toBe(true);
  });

  it('is back at genesis when a snapshot does not restore', () => {
    const { applier, apply, modules } = harness();
    apply(registerDraft(ALICE, 1));
    apply(put(ALICE, 1, 1, 'k'));
    expect(() => applier.restoreSnapshot(Buffer.from('not a snapshot'))).toThrow();
    expect(applier.commitOp).toBe(0);
    expect(applier.restoredOp).toBe(0);
    expect(applier.table.size).toBe(0);
    expect(modules.kv.map.size).toBe(0);
  });

  it('expires idle sessions by journal time and tells their next request EXPIRED', () => {
    const { applier, apply } = harness();
    apply(bootDraft({ clientsMax: 4, ring: 2, sessionTtlMs: 10_000 }));
    apply(registerDraft(ALICE, 1), 1);
    const late = apply(registerDraft(BOB, 1), 20);
    expect(late.endedSessions).toEqual([
      { client: ALICE, epoch: 2, userId: 1, watermark: 0, reason: EvictionReason.Expired },
    ]);
    expect(applier.goneReason(ALICE)).toBe(EvictionReason.Expired);
    const refused = apply(put(ALICE, 2, 1, 'k'), 21);
    expect(refused.eviction).toBe(EvictionReason.Expired);
    expect(decodeHeader(refused.reply!)).toMatchObject({
      command: Command.Eviction,
      status: EvictionReason.Expired,
    });
    // Registering again makes it an ordinary client whose session may end again.
    apply(registerDraft(ALICE, 1), 22);
    expect(applier.goneReason(ALICE)).toBe(EvictionReason.NoSession);
  });

  it('reports a crashing handler only where the live node asks it to', () => {
    const { applier, apply } = harness();
    const errors: string[] = [];
    const log: EngineLogger = {
      log: () => undefined,
      warn: () => undefined,
      error: (line) => errors.push(line),
    };
    apply(registerDraft(ALICE, 1));
    const crash = (request: number) => commandDraft(ALICE, 1, 1, request, 'kv.crash', {});
    const quiet = apply(crash(1));
    applier.handlerFailureLog = log;
    const loud = apply(crash(2));
    // The log gets the error's message and stack; the reply names only the op.
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^handler for "kv\.crash" failed at op 3: Error: boom\n\s+at /);
    for (const outcome of [quiet, loud]) {
      expect(decodeHeader(outcome.reply!).status).toBe(Status.Ok);
      expect(JSON.parse(outcome.result!.toString('utf8'))).toEqual({
        ok: false,
        error: {
          code: 'HANDLER_FAILED',
          message: `the handler failed at op ${outcome.entry.op}; the server log has the details`,
        },
      });
    }
  });
});
