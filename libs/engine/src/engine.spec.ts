import { ClassicLevel } from 'classic-level';
import { join } from 'node:path';
import { lastValueFrom } from 'rxjs';
import { EntryKind, InvalidEntryError } from '@once/journal';
import { KEYED_SNAPSHOT_COPY_KEY, SUBLEVEL_NAMES } from '@once/journal/internal';
import { Command, EvictionReason, Operation, Status } from '@once/protocol';
import { clientIdFromBigInt, decodeHeader, mintResumeToken } from '@once/protocol/internal';
import { ApplyOrderError } from './apply-order.error';
import { encodeCommandBody } from './command-body';
import { decodeEngineSnapshot, encodeEngineSnapshot } from './engine-snapshot-codec';
import { type ApplyOutcome } from './apply-outcome';
import {
  bootDraft,
  commandDraft,
  logoutDraft,
  registerDraft,
} from './__fixtures__/entry-drafts.fixture';
import {
  type TestNode,
  startTestNode,
  submit,
  tempDataDir,
} from './__fixtures__/test-node.fixture';
import { EngineUnavailableError } from './engine-unavailable.error';
import { OnceNode } from './once-node';
import { KvState, sampleModules } from './__fixtures__/sample-modules.fixture';
import { type ModuleState } from './module-state';

const ALICE = clientIdFromBigInt(0xa11cen);
const BOB = clientIdFromBigInt(0xb0bn);
const CAROL = clientIdFromBigInt(0xca201n);

function bodyOf(outcome: ApplyOutcome): unknown {
  const reply = outcome.reply!;
  return JSON.parse(reply.subarray(128).toString('utf8'));
}

describe('Engine (the apply path)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let test: TestNode;

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDataDir());
    test = await startTestNode(dir, { settings: { clientsMax: 2, ring: 2 } });
  });

  afterEach(async () => {
    await test.node.stop();
    await cleanup();
  });

  async function register(client: string, userId = 1): Promise<ApplyOutcome> {
    return submit(test.engine, registerDraft(client, userId));
  }

  /** The epoch a REGISTER of `client` opened (its op): what the session's requests carry. */
  async function epochOf(client: string, userId = 1): Promise<number> {
    return (await register(client, userId)).registered!.epoch;
  }

  /** The kinds of the journal's entries from `fromOp` to its end, in op order. */
  async function kindsFrom(fromOp: number): Promise<EntryKind[]> {
    const kinds: EntryKind[] = [];
    for await (const batch of test.node.journal.readBatches(fromOp)) {
      for (const entry of batch) kinds.push(entry.kind);
    }
    return kinds;
  }

  async function command(
    client: string,
    pattern: string,
    data: unknown,
    userId = 1,
  ): Promise<ApplyOutcome> {
    const entry = test.engine.table.get(client);
    const session = entry?.epoch ?? 1;
    const request = (entry?.watermark ?? 0) + 1;
    return submit(test.engine, commandDraft(client, userId, session, request, pattern, data));
  }

  // Op layout of a new directory: the MANIFEST of the code comes first (op 1), then the BOOT (op 2).
  it('journals the code as a MANIFEST entry at op 1, then the limits in force as a BOOT entry at op 2 of a new directory', async () => {
    expect(test.engine.ready).toBe(true);
    expect(test.engine.commitOp).toBe(2);
    expect(await kindsFrom(1)).toEqual([EntryKind.Manifest, EntryKind.Boot]);
    expect(test.engine.settings).toEqual({
      clientsMax: 2,
      ring: 2,
      sessionTtlMs: 0,
      httpKeyRetentionMs: 86_400_000,
      httpKeysMax: 1_000_000,
    });
    expect(test.engine.table.capacity).toBe(2);
    expect(test.node.journal.meta.settings).toEqual({
      clientsMax: 2,
      ring: 2,
      sessionTtlMs: 0,
      httpKeyRetentionMs: 86_400_000,
      httpKeysMax: 1_000_000,
      sinceOp: 2,
    });
  });

  it('applies a REGISTER: epoch = its op, reply fields and body from the entry', async () => {
    const outcome = await register(ALICE, 7);
    const op = outcome.entry.op;
    const header = decodeHeader(outcome.reply!);
    expect(outcome.registered).toEqual({
      client: ALICE,
      epoch: op,
      userId: 7,
      watermark: 0,
      previousEpoch: undefined,
    });
    expect(header).toMatchObject({
      command: Command.Reply,
      operation: Operation.Register,
      status: Status.Ok,
      client: ALICE,
      session: op,
      request: 0,
      op,
      commit: op,
      timestamp: outcome.entry.timestamp,
      watermark: 0,
    });
    expect(header.resumeToken.equals(outcome.entry.requestChecksum)).toBe(true);
    expect(bodyOf(outcome)).toEqual({
      userId: 7,
      epoch: op,
      watermark: 0,
      resumeToken: mintResumeToken(test.node.journal.nodeSecret, ALICE, op).toString('hex'),
    });
  });

  it('applies a COMMAND, caches its reply, and the table answers a retry with the same bytes', async () => {
    const epoch = await epochOf(ALICE);
    const outcome = await command(ALICE, 'kv.put', { key: 'k', value: 'v' });
    expect(outcome.cached).toBe(true);
    const header = decodeHeader(outcome.reply!);
    expect(header).toMatchObject({
      status: Status.Ok,
      session: epoch,
      request: 1,
      op: outcome.entry.op,
      commit: outcome.entry.op,
      watermark: 1,
    });
    expect(header.timestamp).toBe(outcome.entry.timestamp);
    expect(bodyOf(outcome)).toEqual({ ok: true, result: { previous: null } });
    expect(test.modules.kv.map.get('k')).toBe('v');
    const retry = test.engine.table.check(ALICE, epoch, 1, outcome.entry.requestChecksum);
    expect(retry).toEqual({ kind: 'duplicate', reply: outcome.reply });
  });

  it.each([
    ['kv.refuse', 'KV_REFUSED'],
    ['kv.crash', 'HANDLER_FAILED'],
    ['kv.async', 'ASYNC_HANDLER'],
    ['no.such.pattern', 'UNKNOWN_PATTERN'],
  ])('commits %s as the refusal %s, cached like any reply', async (pattern, code) => {
    await register(ALICE);
    const outcome = await command(ALICE, pattern, {});
    expect(outcome.cached).toBe(true);
    expect(decodeHeader(outcome.reply!).status).toBe(Status.Ok);
    expect(bodyOf(outcome)).toMatchObject({ ok: false, error: { code } });
    expect(test.engine.table.get(ALICE)?.watermark).toBe(1);
  });

  it('ignores a "refusal" key a client put in its own command body: only admission writes refusals', async () => {
    const epoch = await epochOf(ALICE);
    const body = Buffer.from(
      '{"pattern":"kv.put","data":{"key":"k","value":"v"},"refus\\u0061l":{"code":"FORGED","message":"x"}}',
    );
    const draft = { ...commandDraft(ALICE, 1, epoch, 1, 'kv.put', null), body };
    const outcome = await submit(test.engine, draft);
    expect(bodyOf(outcome)).toEqual({ ok: true, result: { previous: null } });
    expect(test.modules.kv.map.get('k')).toBe('v');
  });

  it('commits a refusal made at admission as the same refusal on every replay', async () => {
    const epoch = await epochOf(ALICE);
    const body = encodeCommandBody({
      pattern: 'kv.put',
      refusal: { code: 'FORBIDDEN', message: 'no' },
    });
    const outcome = await submit(test.engine, {
      ...commandDraft(ALICE, 1, epoch, 1, 'kv.put', null),
      body,
    });
    expect(bodyOf(outcome)).toEqual({ ok: false, error: { code: 'FORBIDDEN', message: 'no' } });
    expect(test.modules.kv.map.size).toBe(0);
  });

  it('given a command submitted with its body as admission decoded it, then apply hands the handler that value, and replay rebuilds the same reply from the bytes', async () => {
    const epoch = await epochOf(ALICE);
    let keyReads = 0;
    // What decoding the body gives, with a getter that shows whether the handler read this value.
    const data = {
      get key() {
        keyReads++;
        return 'a';
      },
      value: '1',
    };
    const draft = commandDraft(ALICE, 1, epoch, 1, 'kv.put', { key: 'a', value: '1' });
    const live = await new Promise<ApplyOutcome>((resolve) =>
      test.engine.submit(draft, resolve, undefined, { pattern: 'kv.put', data }),
    );
    expect(keyReads).toBe(1);
    expect(bodyOf(live)).toEqual({ ok: true, result: { previous: null } });

    await test.node.stop({ snapshot: false });
    test = await startTestNode(dir, { settings: { clientsMax: 2, ring: 2 } });
    expect(keyReads).toBe(1);
    expect(test.modules.kv.map.get('a')).toBe('1');
    const cached = test.engine.table.get(ALICE)!.replies.find((reply) => reply.request === 1)!;
    expect(cached.reply.equals(live.reply!)).toBe(true);
  });

  it('hands the handler a context made only of the entry', async () => {
    await register(ALICE, 3);
    const outcome = await command(ALICE, 'ctx.echo', null, 3);
    expect(bodyOf(outcome)).toEqual({
      ok: true,
      result: {
        op: outcome.entry.op,
        timestamp: String(outcome.entry.timestamp),
        userId: 3,
        client: ALICE,
      },
    });
  });

  it('fences a request admitted under an epoch that a later REGISTER replaced', async () => {
    const replaced = await epochOf(ALICE);
    await register(ALICE); // resume: a higher epoch, watermark kept
    const stale = await submit(
      test.engine,
      commandDraft(ALICE, 1, replaced, 1, 'kv.put', { key: 'k', value: 'v' }),
    );
    expect(stale.eviction).toBe(EvictionReason.SessionTooLow);
    expect(decodeHeader(stale.reply!)).toMatchObject({
      command: Command.Eviction,
      status: EvictionReason.SessionTooLow,
      session: replaced,
      request: 1,
      op: 0,
      commit: stale.entry.op,
    });
    expect(stale.cached).toBe(false);
    expect(test.modules.kv.map.size).toBe(0);
  });

  it('answers EPOCH_AHEAD and REQUEST_GAP at apply without touching the table', async () => {
    const epoch = await epochOf(ALICE);
    const ahead = await submit(
      test.engine,
      commandDraft(ALICE, 1, 99, 1, 'kv.put', { key: 'a', value: '1' }),
    );
    expect(decodeHeader(ahead.reply!).status).toBe(Status.EpochAhead);
    const gap = await submit(
      test.engine,
      commandDraft(ALICE, 1, epoch, 5, 'kv.put', { key: 'a', value: '1' }),
    );
    expect(decodeHeader(gap.reply!)).toMatchObject({ status: Status.RequestGap, watermark: 0 });
    expect(test.engine.table.get(ALICE)?.watermark).toBe(0);
  });

  it('answers NO_SESSION for a client without an entry', async () => {
    const outcome = await submit(
      test.engine,
      commandDraft(BOB, 1, 5, 1, 'kv.put', { key: 'a', value: '1' }),
    );
    expect(outcome.eviction).toBe(EvictionReason.NoSession);
  });

  it('applies a LOGOUT: entry removed, holdings released, session ended LOGGED_OUT', async () => {
    const epoch = await epochOf(ALICE);
    await command(ALICE, 'member.join', {});
    expect(test.modules.membership.members.has(ALICE)).toBe(true);
    const outcome = await submit(test.engine, logoutDraft(ALICE, 1, epoch, 2));
    expect(decodeHeader(outcome.reply!)).toMatchObject({
      status: Status.Ok,
      operation: Operation.Logout,
      watermark: 2,
    });
    expect(outcome.cached).toBe(false);
    expect(outcome.endedSessions).toEqual([
      { client: ALICE, epoch, userId: 1, watermark: 1, reason: EvictionReason.LoggedOut },
    ]);
    expect(test.engine.table.get(ALICE)).toBeUndefined();
    expect(test.modules.membership.members.size).toBe(0);
  });

  it('evicts the session with the oldest last commit when the table is full, releasing its holdings', async () => {
    const epoch = await epochOf(ALICE);
    await command(ALICE, 'member.join', {});
    await register(BOB);
    const outcome = await register(CAROL);
    expect(outcome.endedSessions).toEqual([
      { client: ALICE, epoch, userId: 1, watermark: 1, reason: EvictionReason.Evicted },
    ]);
    expect(test.engine.table.get(ALICE)).toBeUndefined();
    expect(test.modules.membership.members.has(ALICE)).toBe(false);
  });

  it('refuses a REGISTER of a client id another user owns, without changing the table', async () => {
    await register(ALICE, 1);
    const outcome = await register(ALICE, 2);
    expect(decodeHeader(outcome.reply!).status).toBe(Status.ClientOwnedByOtherUser);
    expect(outcome.registered).toBeUndefined();
    expect(test.engine.table.get(ALICE)?.userId).toBe(1);
  });

  it('releases what a client held while connected when a release is journaled', async () => {
    await register(ALICE);
    await command(ALICE, 'member.join', {});
    await new Promise<void>((resolve) => {
      const off = test.engine.onApplied((outcome) => {
        if (outcome.entry.kind === EntryKind.Release) {
          off();
          resolve();
        }
      });
      test.engine.submitRelease(ALICE);
    });
    expect(test.modules.membership.members.size).toBe(0);
    expect(test.engine.table.get(ALICE)).toBeDefined();
  });

  it('keeps what an admission step produced: replay does not redraw it', async () => {
    await register(ALICE);
    const body = await test.engine.prepareCommand(
      'kv.sealed',
      { key: 's', value: 'x' },
      { pattern: 'kv.sealed', userId: 1, client: ALICE },
    );
    const entry = test.engine.table.get(ALICE)!;
    const draft = { ...commandDraft(ALICE, 1, entry.epoch, 1, 'kv.sealed', null), body };
    const outcome = await submit(test.engine, draft);
    const stored = test.modules.kv.map.get('s');
    expect(stored).toMatch(/^x:[0-9a-f]{8}$/);
    expect(bodyOf(outcome)).toEqual({ ok: true, result: { stored } });

    await test.node.stop({ snapshot: false });
    test = await startTestNode(dir, { settings: { clientsMax: 2, ring: 2 } });
    expect(test.modules.kv.map.get('s')).toBe(stored);
  });

  it('releases connection-scoped holdings at boot, through a journaled BOOT entry', async () => {
    await register(ALICE);
    await command(ALICE, 'member.join', {});
    await test.node.stop();
    // What the stop journaled (the REPLY_CHECK of the join's reply) is before the restart.
    const opBefore = test.engine.commitOp;
    test = await startTestNode(dir, { settings: { clientsMax: 2, ring: 2 } });
    expect(test.modules.membership.members.size).toBe(0);
    expect(test.engine.commitOp).toBe(opBefore + 1);
    expect(await kindsFrom(opBefore + 1)).toEqual([EntryKind.Boot]);
    expect(test.engine.table.get(ALICE)?.watermark).toBe(1);
  });

  it("given commands sent one after the other, then each REPLY_CHECK shares the next request's synced write: no sync of its own", async () => {
    await register(ALICE);
    const before = test.node.journal.writeStats;
    for (let i = 0; i < 5; i++) await command(ALICE, 'kv.put', { key: `k${i}`, value: 'v' });
    await register(BOB);
    const after = test.node.journal.writeStats;
    // Five COMMANDs and a REGISTER: six writes, the last five each with the REPLY_CHECK before it.
    expect(after.batches - before.batches).toBe(6);
    expect(after.entries - before.entries).toBe(11);
    const kinds: EntryKind[] = [];
    for await (const batch of test.node.journal.readBatches(test.engine.commitOp - 10, 64)) {
      for (const entry of batch) kinds.push(entry.kind);
    }
    expect(kinds).toEqual([
      EntryKind.Command,
      ...[1, 2, 3, 4].flatMap(() => [EntryKind.ReplyCheck, EntryKind.Command]),
      EntryKind.ReplyCheck,
      EntryKind.Register,
    ]);
  });

  it('given a REPLY_CHECK held for the next request, when the journal refuses that request, then the check is written alone', async () => {
    await register(ALICE);
    await command(ALICE, 'kv.put', { key: 'k', value: 'v' });
    const before = test.node.journal.lastOp;
    const invalid = {
      ...commandDraft(ALICE, 1, 1, 2, 'kv.put', {}),
      requestChecksum: Buffer.alloc(3),
    };
    expect(() => test.engine.submit(invalid)).toThrow(InvalidEntryError);
    await eventuallyDurableOf(test.node.journal, before + 1);
    const [check] = await firstBatch(test.node.journal.readBatches(before + 1, 1));
    expect(check.kind).toBe(EntryKind.ReplyCheck);
  });

  it('journals a change of limits at boot and applies it to the table (evicting the excess)', async () => {
    await register(ALICE);
    await register(BOB);
    await test.node.stop();
    test = await startTestNode(dir, { settings: { clientsMax: 1, ring: 2 } });
    expect(test.engine.settings.clientsMax).toBe(1);
    expect(test.engine.table.size).toBe(1);
    expect(test.engine.table.get(BOB)).toBeDefined();
  });

  it('restarts from a snapshot and replays only what came after it', async () => {
    await register(ALICE);
    await command(ALICE, 'kv.put', { key: 'a', value: '1' });
    await test.engine.takeSnapshot();
    const snapshotOp = test.engine.commitOp;
    await command(ALICE, 'kv.put', { key: 'b', value: '2' });
    await test.node.stop({ snapshot: false });
    // Captured once stopped: a graceful stop journals the last replies' REPLY_CHECK.
    const before = test.engine.captureSnapshot();
    const lastOp = test.engine.commitOp;

    const modules = sampleModules();
    const node = await OnceNode.open({
      dataDir: dir,
      commands: modules.commands,
      states: modules.states,
      settings: { clientsMax: 2, ring: 2 },
    });
    const progress = await lastValueFrom(node.boot(), { defaultValue: undefined });
    expect(progress).toMatchObject({ done: true, snapshotOp, appliedEntries: lastOp - snapshotOp });
    expect(node.engine.captureSnapshot().equals(before)).toBe(true);
    test = { node, engine: node.engine, modules };
  });

  async function reopenCollectingWarnings(extraState = false) {
    const modules = sampleModules();
    const warnings: string[] = [];
    const states: Array<[string, ModuleState]> = [...modules.states];
    if (extraState) states.push(['extra', new KvState()]);
    const node = await OnceNode.open({
      dataDir: dir,
      commands: modules.commands,
      states,
      settings: { clientsMax: 2, ring: 2 },
      logger: { log: () => undefined, warn: (line) => warnings.push(line), error: () => undefined },
    });
    const progress = await lastValueFrom(node.boot(), { defaultValue: undefined });
    test = { node, engine: node.engine, modules };
    return { progress, warnings };
  }

  it('restores a corrupt snapshot from the copy kept with the keyed records, and says so', async () => {
    await register(ALICE);
    await command(ALICE, 'keyed.put', { key: 'a', value: '1' });
    await test.engine.takeSnapshot();
    const snapshotOp = test.engine.commitOp;
    await test.node.stop({ snapshot: false });
    const before = test.engine.captureSnapshot();
    await breakSnapshots(dir, { keyedCopy: false });

    const { progress, warnings } = await reopenCollectingWarnings();
    expect(progress).toMatchObject({ done: true, snapshotOp });
    expect(warnings).toContain(
      `snapshot at op ${snapshotOp} is corrupt: checksum mismatch; the copy written with the keyed records is used`,
    );
    expect(test.engine.captureSnapshot().equals(before)).toBe(true);
  });

  it('falls back to a full replay when the stored snapshot is corrupt', async () => {
    await register(ALICE);
    await command(ALICE, 'kv.put', { key: 'a', value: '1' });
    await test.engine.takeSnapshot();
    await test.node.stop({ snapshot: false });
    // Captured once stopped: a graceful stop journals the last replies' REPLY_CHECK.
    const before = test.engine.captureSnapshot();
    // The copy a snapshot with keyed records keeps beside them goes too.
    await breakSnapshots(dir, { keyedCopy: true });

    const { progress, warnings } = await reopenCollectingWarnings();
    expect(progress).toMatchObject({ done: true, snapshotOp: 0 });
    expect(warnings.some((line) => line.includes('unreadable'))).toBe(true);
    expect(test.engine.captureSnapshot().equals(before)).toBe(true);
  });

  // A snapshot without a state added since no longer misfits (the state starts empty): a
  // snapshot that does is one written by a newer version of a state's code (a rollback).
  it('falls back to a full replay when the snapshot does not fit the modules (a state written by a newer version of its code)', async () => {
    await register(ALICE);
    await command(ALICE, 'kv.put', { key: 'a', value: '1' });
    const snapshotOp = test.engine.commitOp;
    const taken = decodeEngineSnapshot(test.engine.captureSnapshot());
    const tooNew = encodeEngineSnapshot({
      ...taken,
      states: taken.states.map(([name, json, version]) =>
        name === 'kv' ? [name, json, version + 1] : [name, json, version],
      ),
    });
    await test.node.journal.saveSnapshot(snapshotOp, tooNew);
    await test.node.stop({ snapshot: false });

    const { progress, warnings } = await reopenCollectingWarnings();
    expect(progress).toMatchObject({ done: true, snapshotOp: 0 });
    expect(warnings.some((line) => line.includes('does not restore'))).toBe(true);
    expect(test.modules.kv.map.get('a')).toBe('1');
  });

  it('given a state added since the snapshot, when restarting, then it restores the snapshot and the added state starts empty', async () => {
    await register(ALICE);
    await command(ALICE, 'kv.put', { key: 'a', value: '1' });
    await test.engine.takeSnapshot();
    const snapshotOp = test.engine.commitOp;
    await test.node.stop({ snapshot: false });

    const { progress, warnings } = await reopenCollectingWarnings(true);
    expect(progress).toMatchObject({ done: true, snapshotOp });
    expect(warnings.some((line) => line.includes('does not restore'))).toBe(false);
    expect(test.modules.kv.map.get('a')).toBe('1');
    expect(test.engine.applier.states.get('extra')!.toSnapshot()).toEqual([]);
  });

  it('runs genesis commands only on a new data directory', async () => {
    await test.node.stop();
    const genesis = [{ pattern: 'kv.put', data: { key: 'genesis', value: 'once' } }];
    test = await startTestNode(dir, { settings: { clientsMax: 2, ring: 2 }, genesis });
    expect(test.modules.kv.map.has('genesis')).toBe(false);
    await test.node.stop();

    const fresh = await tempDataDir();
    try {
      const node = await startTestNode(fresh.dir, { genesis });
      expect(node.modules.kv.map.get('genesis')).toBe('once');
      await node.node.stop();
    } finally {
      await fresh.cleanup();
    }
    test = await startTestNode(dir, { settings: { clientsMax: 2, ring: 2 } });
  });

  it('refuses to apply out of op order', () => {
    expect(() =>
      test.engine.apply({
        ...bootDraft({ clientsMax: 2, ring: 2, sessionTtlMs: 0 }),
        op: 99,
        timestamp: 1n,
      }),
    ).toThrow(ApplyOrderError);
  });
});

describe('Engine fail-stop', () => {
  it('stops acknowledging writes when the journal cannot write, and says so', async () => {
    const { dir, cleanup } = await tempDataDir();
    let failWrites = false;
    const test = await startTestNode(dir, {
      journal: {
        beforeWrite: () => {
          if (failWrites) throw new Error('disk on fire');
        },
      },
    });
    try {
      const { epoch } = (await submit(test.engine, registerDraft(ALICE, 1))).registered!;
      failWrites = true;
      let answered = false;
      test.engine.submit(
        commandDraft(ALICE, 1, epoch, 1, 'kv.put', { key: 'k', value: 'v' }),
        () => (answered = true),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(answered).toBe(false);
      expect(test.engine.phase).toBe('failed');
      expect(test.modules.kv.map.size).toBe(0);
      expect(() => test.engine.submit(registerDraft(BOB, 1))).toThrow(EngineUnavailableError);
    } finally {
      await test.node.stop();
      await cleanup();
    }
  });
});

/** Waits until the journal made `op` durable (a bound, not a timing assertion). */
async function eventuallyDurableOf(journal: { durableOp: number }, op: number): Promise<void> {
  for (let waited = 0; journal.durableOp < op; waited += 5) {
    if (waited > 10_000) throw new Error(`op ${op} never became durable`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function firstBatch<T>(batches: AsyncIterable<T[]>): Promise<T[]> {
  for await (const batch of batches) return batch;
  return [];
}

/**
 * Flips the last byte of every snapshot of a closed data directory (raw
 * LevelDB), and with `keyedCopy` deletes the copy of the newest one kept
 * beside the keyed records.
 */
async function breakSnapshots(dir: string, { keyedCopy }: { keyedCopy: boolean }): Promise<void> {
  const db = new ClassicLevel<Buffer, Buffer>(join(dir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  const level = (name: string) =>
    db.sublevel<Buffer, Buffer>(name, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  try {
    const snapshots = level(SUBLEVEL_NAMES.snapshot);
    for await (const [key, value] of snapshots.iterator()) {
      const broken = Buffer.from(value);
      broken[broken.length - 1] ^= 0xff;
      await snapshots.put(key, broken);
    }
    if (keyedCopy) await level(SUBLEVEL_NAMES.keyed).del(KEYED_SNAPSHOT_COPY_KEY);
  } finally {
    await db.close();
  }
}
