import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EntryDraft, EntryKind, type JournalEntry } from './journal-entry';
import { JournalStore } from './journal-store';

function commandDraft(request: number): EntryDraft {
  return {
    kind: EntryKind.Command,
    client: 'c0ffee00c0ffee00c0ffee00c0ffee00',
    session: 1,
    request,
    userId: 7,
    requestChecksum: Buffer.alloc(16, request & 0xff),
    body: Buffer.from(`{"pattern":"count","data":${request}}`),
  };
}

describe('group commit (JournalStore.append)', () => {
  let dir: string;
  let store: JournalStore | undefined;

  beforeEach(async () => {
    dir = await fs.mkdtemp(join(tmpdir(), 'once-journal-group-'));
  });

  afterEach(async () => {
    await store?.close();
    store = undefined;
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('puts appends issued during a write into one next batch, resolving only once synced', async () => {
    const batchSizes: number[] = [];
    const durableGroups: number[][] = [];
    const opened = await JournalStore.open(dir, {
      beforeWrite: (entryCount) => {
        batchSizes.push(entryCount);
      },
    });
    store = opened;
    opened.onDurable((entries) => durableGroups.push(entries.map((e) => e.op)));

    // The first append starts a write at once; the 200 issued in the same tick
    // find it in progress and must all wait for the next batch.
    const first = opened.append(commandDraft(1));
    expect(opened.pendingCount).toBe(1);
    const seenAtResolution: Array<{ op: number; durableOp: number; notified: boolean }> = [];
    const rest = Array.from({ length: 200 }, (_, i) =>
      opened.append(commandDraft(i + 2)).then((entry) => {
        seenAtResolution.push({
          op: entry.op,
          durableOp: opened.durableOp,
          notified: durableGroups.some((group) => group.includes(entry.op)),
        });
        return entry;
      }),
    );
    expect(opened.lastOp).toBe(201);
    expect(opened.durableOp).toBe(0);
    expect(opened.pendingCount).toBe(201);

    const entries: JournalEntry[] = await Promise.all([first, ...rest]);

    expect(entries.map((e) => e.op)).toEqual(Array.from({ length: 201 }, (_, i) => i + 1));
    expect(entries.map((e) => e.request)).toEqual(Array.from({ length: 201 }, (_, i) => i + 1));
    expect(batchSizes).toEqual([1, 200]);
    expect(durableGroups.map((group) => group.length)).toEqual([1, 200]);
    expect(durableGroups.flat()).toEqual(entries.map((e) => e.op));
    for (const seen of seenAtResolution) {
      expect(seen.durableOp).toBeGreaterThanOrEqual(seen.op);
      expect(seen.notified).toBe(true);
    }
    expect(opened.durableOp).toBe(201);
    expect(opened.pendingCount).toBe(0);
  });

  it('keeps batches in op order under a sustained stream', async () => {
    const durableGroups: number[][] = [];
    const opened = await JournalStore.open(dir);
    store = opened;
    opened.onDurable((entries) => {
      expect(opened.durableOp).toBe(entries[entries.length - 1].op);
      durableGroups.push(entries.map((e) => e.op));
    });
    const appends: Array<Promise<JournalEntry>> = [];
    for (let tick = 0; tick < 20; tick++) {
      for (let i = 0; i < 50; i++) appends.push(opened.append(commandDraft(appends.length + 1)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(appends);
    const ops = durableGroups.flat();
    expect(ops).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    // Group commit at work: far fewer synced writes than entries.
    expect(durableGroups.length).toBeLessThan(1000);
  });

  it('never lets timestamps decrease, even with a clock that goes backwards', async () => {
    let now = 1_000_000n;
    const opened = await JournalStore.open(dir, {
      clock: () => {
        now -= 10n;
        return now;
      },
    });
    store = opened;
    const entries = await Promise.all(
      Array.from({ length: 50 }, (_, i) => opened.append(commandDraft(i + 1))),
    );
    for (let i = 1; i < entries.length; i++) {
      expect(entries[i].timestamp).toBeGreaterThanOrEqual(entries[i - 1].timestamp);
    }
    expect(entries[0].timestamp).toBe(999_990n);
    expect(opened.lastTimestamp).toBe(entries[entries.length - 1].timestamp);
  });

  it('takes timestamps from the clock while it moves forward', async () => {
    let now = 5_000n;
    const opened = await JournalStore.open(dir, { clock: () => (now += 3n) });
    store = opened;
    const a = await opened.append(commandDraft(1));
    const b = await opened.append(commandDraft(2));
    expect([a.timestamp, b.timestamp]).toEqual([5_003n, 5_006n]);
  });

  it('rejects an invalid draft synchronously without using an op', async () => {
    const opened = await JournalStore.open(dir);
    store = opened;
    expect(() => opened.append({ ...commandDraft(1), userId: -1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ENTRY' }) as Error,
    );
    expect(() => opened.append({ ...commandDraft(1), kind: 99 as EntryKind })).toThrow(TypeError);
    expect(opened.lastOp).toBe(0);
    expect((await opened.append(commandDraft(1))).op).toBe(1);
  });

  it('stops notifying a listener once unsubscribed', async () => {
    const opened = await JournalStore.open(dir);
    store = opened;
    const seen: number[] = [];
    const unsubscribe = opened.onDurable((entries) => seen.push(...entries.map((e) => e.op)));
    await opened.append(commandDraft(1));
    unsubscribe();
    await opened.append(commandDraft(2));
    expect(seen).toEqual([1]);
  });

  it('hands out entries whose buffers are the written bytes, not the caller’s', async () => {
    const opened = await JournalStore.open(dir);
    store = opened;
    const draft = commandDraft(1);
    const appended = opened.append(draft);
    draft.body.fill(0);
    const entry = await appended;
    expect(entry.body.toString()).toBe('{"pattern":"count","data":1}');
  });
});
