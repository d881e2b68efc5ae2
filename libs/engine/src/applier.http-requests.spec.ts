import { EntryKind } from '@once/journal';
import { type EntryDraft, type JournalEntry } from '@once/journal/internal';
import { ZERO_CHECKSUM, ZERO_CLIENT_ID } from '@once/protocol/internal';
import { Applier } from './applier';
import { type CommandHandler } from './command-handler';
import { CommandRegistry } from './command-registry';
import { decodeEngineSnapshot, encodeEngineSnapshot } from './engine-snapshot-codec';
import { type HttpRequestDraft } from './http/http-request';
import { httpRequestEntryDraft } from './http/http-request-body';
import { HTTP_KEYS_MAP } from './http/http-key-table';
import { KeyedStore } from './keyed';
import { StateRegistry } from './state-registry';
import { MemoryKeyedRecords } from './__fixtures__/memory-keyed-records.fixture';
import { bootDraft } from './__fixtures__/entry-drafts.fixture';
import { sampleModules } from './__fixtures__/sample-modules.fixture';

const SECRET = Buffer.alloc(32, 7);
const MS = 1_000_000n;
const START_NS = 1_700_000_000_000n * MS;

/** A handler that returns nothing: its HTTP response has an empty body. */
const SILENT: CommandHandler = { pattern: 'silent', apply: () => undefined };

/**
 * An applier whose keyed records (the key table's) are written to
 * `records` by {@link checkpoint}, as a snapshot writes them to the data
 * directory; a snapshot restores only over the records written with it.
 * Its states are the sample ones but the keyed state: an application
 * without keyed state, whose snapshots hold the client table whole and
 * are in format 4 only while keys are held.
 */
function harness(records = MemoryKeyedRecords.empty()) {
  const modules = sampleModules();
  const applier = new Applier({
    commands: new CommandRegistry([...modules.commands, SILENT]),
    states: new StateRegistry(modules.states.filter(([, state]) => state !== modules.keyed)),
    nodeSecret: SECRET,
    keyed: new KeyedStore(records),
  });
  const apply = (draft: EntryDraft, atMs = 0) =>
    applier.apply(entryOf(draft, applier.commitOp + 1, START_NS + BigInt(atMs) * MS));
  /** A snapshot now, its keyed records written as the scheduler writes them. */
  const checkpoint = (): Buffer => {
    const bytes = applier.captureSnapshot();
    records.checkpoint(applier.keyed, applier.commitOp);
    return bytes;
  };
  return { applier, modules, apply, records, checkpoint };
}

function entryOf(draft: EntryDraft, op: number, timestamp: bigint): JournalEntry {
  return { ...draft, op, timestamp };
}

function http(key: string, pattern = 'kv.put', fingerprint = 1): EntryDraft {
  const request: HttpRequestDraft = {
    scope: 'user 3|PUT /kv',
    key,
    fingerprint: Buffer.alloc(16, fingerprint),
    userId: 3,
    pattern,
    data: { key, value: `${key}!` },
    status: 200,
    refusalStatus: 409,
  };
  return httpRequestEntryDraft(request);
}

/** A BOOT body as builds before HTTP keys wrote it: three limits. */
const OLD_BOOT = bootDraft({ clientsMax: 4, ring: 2, sessionTtlMs: 0 });

describe('Applier: HTTP_REQUEST entries', () => {
  it('runs the apply step with the entry as its context, and records the response under the key', () => {
    const { applier, apply } = harness();
    const outcome = apply(http('a', 'ctx.echo'), 5);
    expect(outcome.http?.kind).toBe('applied');
    expect(outcome.reply).toBeUndefined();
    expect(JSON.parse(outcome.http!.response.body.toString())).toEqual({
      op: 1,
      timestamp: String(START_NS + 5n * MS),
      userId: 3,
      client: ZERO_CLIENT_ID,
    });
    expect(applier.httpKeys.get('user 3|PUT /kv\na')).toMatchObject({
      op: 1,
      timestamp: START_NS + 5n * MS,
      status: 200,
    });
  });

  it('answers an undefined result with an empty body, and a refusal with the refusal status', () => {
    const { apply } = harness();
    expect(apply(http('s', 'silent')).http?.response).toEqual({
      status: 200,
      body: Buffer.alloc(0),
      op: 1,
    });
    expect(apply(http('r', 'kv.refuse')).http?.response.status).toBe(409);
  });

  it('answers a body that is not an HTTP request 500 INVALID_ENTRY, recording nothing', () => {
    const { applier, apply } = harness();
    const outcome = apply({ ...http('a'), body: Buffer.from('{"scope":1}') });
    expect(outcome.http?.response.status).toBe(500);
    expect(JSON.parse(outcome.http!.response.body.toString())).toMatchObject({
      code: 'INVALID_ENTRY',
    });
    expect(applier.httpKeys.size).toBe(0);
  });

  it('counts every kind of entry as time passing: retention is applied before any entry', () => {
    const { applier, apply } = harness();
    apply(bootDraft({ clientsMax: 4, ring: 2, sessionTtlMs: 0, httpKeyRetentionMs: 100 }));
    apply(http('a'), 10);
    apply(OLD_BOOT, 50);
    // The old BOOT body put the default retention back in force (24 h): nothing expires.
    apply(bootDraft({ clientsMax: 4, ring: 2, sessionTtlMs: 0, httpKeyRetentionMs: 100 }), 60);
    expect(applier.httpKeys.size).toBe(1);
    apply(
      {
        kind: EntryKind.Release,
        client: ZERO_CLIENT_ID,
        session: 0,
        request: 0,
        userId: 0,
        requestChecksum: ZERO_CHECKSUM,
        body: Buffer.alloc(0),
      },
      111,
    );
    expect(applier.httpKeys.size).toBe(0);
  });

  it('reads a BOOT body without the HTTP key settings as their defaults', () => {
    const { applier, apply } = harness();
    apply(OLD_BOOT);
    expect(applier.settings).toEqual({
      clientsMax: 4,
      ring: 2,
      sessionTtlMs: 0,
      httpKeyRetentionMs: 86_400_000,
      httpKeysMax: 1_000_000,
    });
  });

  it('restores a snapshot written before HTTP keys (format 2, three limits) with an empty key table and the defaults', () => {
    const { applier, apply } = harness();
    apply(OLD_BOOT);
    apply(http('a'));
    const taken = decodeEngineSnapshot(applier.captureSnapshot());
    const old = encodeEngineSnapshot({
      ...taken,
      settings: { clientsMax: 4, ring: 2, sessionTtlMs: 0 } as never,
      keyed: undefined,
      httpKeys: undefined,
    });
    expect(old.readUInt8(4)).toBe(2);
    const { applier: restored } = harness();
    expect(restored.restoreSnapshot(old)).toBe(2);
    expect(restored.httpKeys.size).toBe(0);
    expect(restored.settings.httpKeysMax).toBe(1_000_000);
    expect(restored.settings.httpKeyRetentionMs).toBe(86_400_000);
  });

  it('writes format 4 only while keys are held, and restores the keys byte for byte', () => {
    const { applier, apply, records, checkpoint } = harness();
    apply(OLD_BOOT);
    expect(applier.captureSnapshot().readUInt8(4)).toBe(2);
    apply(http('a'));
    apply(http('b', 'kv.crash'));
    const bytes = checkpoint();
    expect(bytes.readUInt8(4)).toBe(4);
    // The records are keyed records, counted and digested in the marker; the section is small.
    expect(decodeEngineSnapshot(bytes).keyed?.counts).toEqual([[HTTP_KEYS_MAP, 2]]);
    const { applier: restored, apply: applyRestored } = harness(records.copy());
    restored.restoreSnapshot(bytes);
    expect(restored.captureSnapshot()).toEqual(bytes);
    // The restored table answers a retry as the live one did.
    expect(applyRestored(http('a')).http).toEqual({
      kind: 'duplicate',
      response: { status: 200, body: Buffer.from('{"previous":null}'), op: 2 },
      duplicate: true,
    });
  });

  it('is back to an empty table at genesis, and after a snapshot that fails to restore', () => {
    const { applier, apply, checkpoint } = harness();
    apply(http('a'));
    const good = checkpoint();
    applier.resetToGenesis();
    expect(applier.httpKeys.size).toBe(0);
    applier.restoreSnapshot(good);
    expect(applier.httpKeys.size).toBe(1);
    const broken = Buffer.from(good);
    // The key table's format byte: its block is the snapshot's last.
    const snapshot = decodeEngineSnapshot(good);
    const tableAt = good.length - snapshot.httpKeys!.length;
    broken.writeUInt8(9, tableAt);
    expect(() => applier.restoreSnapshot(broken)).toThrow(/HTTP key table format 9/);
    expect(applier.httpKeys.size).toBe(0);
    expect(applier.commitOp).toBe(0);
  });

  it('forgets the oldest key early at the bound, counting it across restores', () => {
    const { applier, apply, checkpoint } = harness();
    apply(bootDraft({ clientsMax: 4, ring: 2, sessionTtlMs: 0, httpKeysMax: 1 }));
    apply(http('a'));
    apply(http('b'));
    expect([...applier.httpKeys.entries()].map(([key]) => key)).toEqual(['user 3|PUT /kv\nb']);
    expect(applier.httpEarlyForgets).toBe(1);
    applier.restoreSnapshot(checkpoint());
    apply(http('c'));
    expect(applier.httpEarlyForgets).toBe(2);
  });
});
