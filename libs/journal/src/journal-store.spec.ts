import { ClassicLevel } from 'classic-level';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirectoryInUseError } from './data-directory-in-use.error';
import { EntryOffset } from './entry-codec';
import { JournalCorruptionError } from './journal-corruption.error';
import { type JournalEntry } from './journal-entry';
import { JournalFailedError } from './journal-failed.error';
import { commandDraft } from './__fixtures__/command-draft.fixture';
import { JournalStore } from './journal-store';
import { encodeOpKey } from './op-key';

async function appendMany(store: JournalStore, count: number): Promise<JournalEntry[]> {
  const first = store.lastOp + 1;
  return Promise.all(
    Array.from({ length: count }, (_, i) => store.append(commandDraft(first + i))),
  );
}

async function readAll(store: JournalStore, fromOp = 1, batchSize?: number) {
  const batches: JournalEntry[][] = [];
  for await (const batch of store.readBatches(fromOp, batchSize)) batches.push(batch);
  return batches;
}

async function readError(store: JournalStore, fromOp = 1): Promise<unknown> {
  try {
    await readAll(store, fromOp);
  } catch (error) {
    return error;
  }
  throw new Error('expected readBatches to throw');
}

/** Runs `edit` on the raw journal sublevel of a closed store's directory. */
async function editRawJournal(
  dir: string,
  edit: (journal: ClassicLevel<Buffer, Buffer>, db: ClassicLevel<Buffer, Buffer>) => Promise<void>,
): Promise<void> {
  const db = new ClassicLevel<Buffer, Buffer>(join(dir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await db.open();
  try {
    const journal = db.sublevel<Buffer, Buffer>('journal', {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    });
    await edit(journal as unknown as ClassicLevel<Buffer, Buffer>, db);
  } finally {
    await db.close();
  }
}

describe('JournalStore', () => {
  let dir: string;
  const opened: JournalStore[] = [];

  async function open(options?: Parameters<typeof JournalStore.open>[1]): Promise<JournalStore> {
    const store = await JournalStore.open(dir, options);
    opened.push(store);
    return store;
  }

  beforeEach(async () => {
    dir = await fs.mkdtemp(join(tmpdir(), 'once-journal-store-'));
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('starts empty', async () => {
    const store = await open();
    expect(store.dir).toBe(dir);
    expect([store.lastOp, store.durableOp, store.pendingCount]).toEqual([0, 0, 0]);
    expect(store.lastTimestamp).toBe(0n);
    expect(store.failed).toBeUndefined();
    expect(await readAll(store)).toEqual([]);
  });

  it('tells batch listeners of each synced batch: its entries, and a write time', async () => {
    const store = await open();
    const batches: Array<[number, number]> = [];
    const off = store.onBatchWritten((entryCount, writeMs) => batches.push([entryCount, writeMs]));
    await appendMany(store, 40);
    const whileListening = store.writeStats.batches;
    off();
    await appendMany(store, 3);

    expect(batches.length).toBe(whileListening);
    expect(batches.reduce((total, [entries]) => total + entries, 0)).toBe(40);
    expect(batches.every(([, writeMs]) => writeMs >= 0)).toBe(true);
  });

  it('keeps writing when a batch listener throws: a listener is no write failure', async () => {
    const store = await open();
    // The listener's error is rethrown outside the write, in a microtask: caught here.
    const rethrown: unknown[] = [];
    const queue = globalThis.queueMicrotask.bind(globalThis);
    const spy = jest.spyOn(globalThis, 'queueMicrotask').mockImplementation((callback) =>
      queue(() => {
        try {
          callback();
        } catch (error) {
          rethrown.push(error);
        }
      }),
    );
    try {
      store.onBatchWritten(() => {
        throw new Error('listener bug');
      });
      await appendMany(store, 3);
      await new Promise((resolve) => setImmediate(resolve));
      expect(store.failed).toBeUndefined();
      expect(store.durableOp).toBe(3);
      expect(rethrown).not.toHaveLength(0);
      expect(rethrown[0]).toHaveProperty('message', 'listener bug');
    } finally {
      spy.mockRestore();
    }
  });

  it('keeps appended entries across a reopen and continues at lastOp + 1', async () => {
    const store = await open();
    const written = await appendMany(store, 25);
    await store.close();

    const reopened = await open();
    expect(reopened.lastOp).toBe(25);
    expect(reopened.durableOp).toBe(25);
    expect(reopened.lastTimestamp).toBe(written[24].timestamp);
    const batches = await readAll(reopened, 1, 10);
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 5]);
    expect(batches.flat()).toEqual(written);
    expect((await reopened.append(commandDraft(26))).op).toBe(26);
  });

  it('reads whole batches of batchSize entries, past LevelDB iterators’ 16 KiB default', async () => {
    // 600 entries of about 350 bytes: 16 KiB would hold fewer than 50 of them.
    const store = await open();
    const body = Buffer.from(`{"pattern":"p","data":"${'x'.repeat(240)}"}`);
    const written = await Promise.all(
      Array.from({ length: 600 }, (_, i) => store.append({ ...commandDraft(i + 1), body })),
    );
    await store.close();

    const reopened = await open();
    const batches = await readAll(reopened, 1, 256);
    expect(batches.map((batch) => batch.length)).toEqual([256, 256, 88]);
    expect(batches.flat()).toEqual(written);
  });

  it('refuses LevelDB buffer and cache sizes that are not whole byte counts of at least 64 KiB, and opens with valid ones', async () => {
    for (const options of [
      { leveldbWriteBufferBytes: 1024 },
      { leveldbCacheBytes: 0 },
      { leveldbWriteBufferBytes: 1.5e6 + 0.5 },
    ]) {
      await expect(JournalStore.open(dir, options)).rejects.toThrow(RangeError);
    }
    const store = await JournalStore.open(dir, {
      leveldbWriteBufferBytes: 65_536,
      leveldbCacheBytes: 65_536,
    });
    await appendMany(store, 3);
    expect(store.lastOp).toBe(3);
    await store.close();
  });

  it('reads from any op, and nothing past the end', async () => {
    const store = await open();
    await appendMany(store, 12);
    expect((await readAll(store, 5)).flat().map((e) => e.op)).toEqual([5, 6, 7, 8, 9, 10, 11, 12]);
    expect(await readAll(store, 13)).toEqual([]);
    expect(() => store.readBatches(0)).toThrow(RangeError);
    expect(() => store.readBatches(1, 0)).toThrow(RangeError);
  });

  it('reports a flipped byte as corruption of that op; truncateFrom repairs the journal', async () => {
    const store = await open();
    await appendMany(store, 10);
    await store.close();
    await editRawJournal(dir, async (journal) => {
      const key = encodeOpKey(7);
      const value = (await journal.get(key))!;
      value[EntryOffset.body + 3] ^= 0x20;
      await journal.put(key, value);
    });

    const damaged = await open();
    expect(damaged.lastOp).toBe(10);
    const error = await readError(damaged);
    expect(error).toBeInstanceOf(JournalCorruptionError);
    expect(error).toMatchObject({ code: 'JOURNAL_CORRUPT', op: 7 });
    expect((error as Error).message).toBe('journal entry at op 7 is corrupt: checksum mismatch');

    expect(await damaged.truncateFrom(7)).toBe(4);
    expect(damaged.lastOp).toBe(6);
    expect(damaged.durableOp).toBe(6);
    expect((await readAll(damaged)).flat().map((e) => e.op)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await damaged.append(commandDraft(7))).op).toBe(7);
    await damaged.close();

    const repaired = await open();
    expect((await readAll(repaired)).flat().map((e) => e.op)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('reports a missing op as a gap', async () => {
    const store = await open();
    await appendMany(store, 5);
    await store.close();
    await editRawJournal(dir, (journal) => journal.del(encodeOpKey(3)));

    const damaged = await open();
    const error = await readError(damaged);
    expect(error).toMatchObject({ code: 'JOURNAL_CORRUPT', op: 3 });
    expect((error as Error).message).toContain('the next stored op is 4');
    expect(await readError(damaged, 2)).toMatchObject({ op: 3 });
    // Reading from after the gap is fine.
    expect((await readAll(damaged, 4)).flat().map((e) => e.op)).toEqual([4, 5]);
  });

  it('reports an entry stored under another op key', async () => {
    const store = await open();
    await appendMany(store, 3);
    await store.close();
    await editRawJournal(dir, async (journal) => {
      const value = (await journal.get(encodeOpKey(1)))!;
      await journal.put(encodeOpKey(2), value);
    });
    const damaged = await open();
    expect(await readError(damaged)).toMatchObject({ op: 2 });
  });

  it('opens a journal whose last entry is corrupt, taking lastOp from the key', async () => {
    const store = await open();
    await appendMany(store, 4);
    await store.close();
    await editRawJournal(dir, (journal) => journal.put(encodeOpKey(4), Buffer.from('garbage')));

    const damaged = await open({ clock: () => 123_456_789n });
    expect(damaged.lastOp).toBe(4);
    expect(damaged.lastTimestamp).toBe(123_456_789n);
    expect(await readError(damaged)).toMatchObject({ op: 4 });
    expect(await damaged.truncateFrom(4)).toBe(1);
    expect(damaged.lastOp).toBe(3);
  });

  it('truncateFrom past the end drops nothing', async () => {
    const store = await open();
    await appendMany(store, 3);
    expect(await store.truncateFrom(10)).toBe(0);
    expect(store.lastOp).toBe(3);
    expect(await store.truncateFrom(1)).toBe(3);
    expect([store.lastOp, store.durableOp]).toEqual([0, 0]);
    expect(store.lastTimestamp).toBe(0n);
    expect((await store.append(commandDraft(1))).op).toBe(1);
  });

  it('refuses to truncate while appends are in flight', async () => {
    const store = await open();
    const pending = store.append(commandDraft(1));
    await expect(store.truncateFrom(1)).rejects.toMatchObject({ code: 'JOURNAL_BUSY' });
    await pending;
  });

  it('refuses a second open of the same directory in this process', async () => {
    const store = await open();
    const error: unknown = await JournalStore.open(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataDirectoryInUseError);
    expect(error).toMatchObject({
      code: 'DATA_DIR_IN_USE',
      message: `data directory ${dir} is already open in this process (LevelDB lock held): close the earlier store first`,
    });
    await store.close();
    // Released on close.
    const again = await open();
    expect(again.lastOp).toBe(0);
  });

  describe('fail-stop', () => {
    it('rejects the failed batch and everything after it, once and for all', async () => {
      let writes = 0;
      const store = await open({
        beforeWrite: () => {
          writes++;
          if (writes === 2) throw new Error('disk on fire');
        },
      });
      const failures: Error[] = [];
      store.onFailure((error) => failures.push(error));
      const durable: number[] = [];
      store.onDurable((entries) => durable.push(...entries.map((e) => e.op)));

      const first = store.append(commandDraft(1)); // batch 1: written
      const doomed = [2, 3, 4].map((n) => store.append(commandDraft(n))); // batch 2: fails
      await expect(first).resolves.toMatchObject({ op: 1 });
      const results = await Promise.allSettled(doomed);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        const reason = (result as PromiseRejectedResult).reason as JournalFailedError;
        expect(reason).toBeInstanceOf(JournalFailedError);
        expect(reason.code).toBe('JOURNAL_FAILED');
        expect((reason.cause as Error).message).toBe('disk on fire');
      }
      expect(store.failed).toBe(results[0].status === 'rejected' ? results[0].reason : undefined);
      expect(failures).toHaveLength(1);
      expect(failures[0]).toBe(store.failed);
      expect(durable).toEqual([1]);
      expect(store.durableOp).toBe(1);
      expect(store.pendingCount).toBe(0);

      // Later appends fail at once, without a write and without an op.
      const lastOp = store.lastOp;
      await expect(store.append(commandDraft(5))).rejects.toBe(store.failed);
      expect(store.lastOp).toBe(lastOp);
      expect(writes).toBe(2);
      expect(failures).toHaveLength(1);
      await expect(store.updateSettings({ a: 1 })).rejects.toBe(store.failed);
      await store.close();

      const reopened = await open();
      expect(reopened.lastOp).toBe(1);
      expect((await readAll(reopened)).flat().map((e) => e.op)).toEqual([1]);
      expect((await reopened.append(commandDraft(2))).op).toBe(2);
    });

    it('also rejects the appends queued behind the failing batch', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let writes = 0;
      const store = await open({
        beforeWrite: async () => {
          writes++;
          await gate;
          throw new Error('write refused');
        },
      });
      const failing = store.append(commandDraft(1));
      const queued = [store.append(commandDraft(2)), store.append(commandDraft(3))];
      expect(store.pendingCount).toBe(3);
      release();
      await expect(failing).rejects.toMatchObject({ code: 'JOURNAL_FAILED' });
      for (const append of queued) {
        await expect(append).rejects.toMatchObject({ code: 'JOURNAL_FAILED' });
      }
      expect(writes).toBe(1);
      expect(store.durableOp).toBe(0);
      await store.close();
      const reopened = await open();
      expect(reopened.lastOp).toBe(0);
    });
  });

  describe('close', () => {
    it('waits for queued appends, is idempotent, and refuses appends afterwards', async () => {
      const store = await open();
      const appends = [1, 2, 3].map((n) => store.append(commandDraft(n)));
      const closing = store.close();
      expect(store.close()).toBe(closing);
      await expect(store.append(commandDraft(4))).rejects.toMatchObject({
        code: 'JOURNAL_CLOSED',
      });
      await closing;
      expect((await Promise.all(appends)).map((e) => e.op)).toEqual([1, 2, 3]);
      await store.close();
      expect(() => store.readBatches(1)).toThrow(
        expect.objectContaining({ code: 'JOURNAL_CLOSED' }) as Error,
      );

      const reopened = await open();
      expect(reopened.lastOp).toBe(3);
    });
  });

  it('refuses a snapshot beyond the durable op', async () => {
    const store = await open();
    await appendMany(store, 2);
    await expect(store.saveSnapshot(3, Buffer.from('x'))).rejects.toThrow(RangeError);
  });
});
