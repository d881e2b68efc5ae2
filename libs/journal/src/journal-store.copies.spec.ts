import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { ClassicLevel } from 'classic-level';
import { join } from 'node:path';
import { encodeEntry } from './entry-codec';
import { InvalidEntryError } from './invalid-entry.error';
import { type EntryDraft, EntryKind, type JournalEntry } from './journal-entry';
import { JournalStore } from './journal-store';

function commandDraft(request: number): EntryDraft {
  return {
    kind: EntryKind.Command,
    client: '00000000000000000000000000000def',
    session: 2,
    request,
    userId: 9,
    requestChecksum: Buffer.alloc(16, 3),
    body: Buffer.from(`{"pattern":"p","data":${request}}`),
  };
}

async function readAll(store: JournalStore): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  for await (const batch of store.readBatches(1)) entries.push(...batch);
  return entries;
}

/**
 * A node's applied copy of entries another journal assigned (cluster mode:
 * the replicated stream's): the copy keeps their ops and timestamps, so both
 * hold the same bytes, and it refuses anything that does not continue it.
 */
describe('JournalStore.enqueueCopy', () => {
  let root: string;
  const opened: JournalStore[] = [];
  async function open(name: string, clock?: () => bigint): Promise<JournalStore> {
    const store = await JournalStore.open(join(root, name), clock ? { clock } : undefined);
    opened.push(store);
    return store;
  }

  beforeEach(async () => {
    root = await fs.mkdtemp(join(tmpdir(), 'once-journal-copies-'));
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    await fs.rm(root, { recursive: true, force: true });
  });

  it('holds the source’s entries byte for byte, reports them durable in op order, and keeps them across a reopen', async () => {
    // Given a source journal whose clock is far from the copy's
    const source = await open('source', () => 5_000_000n);
    const written = await Promise.all([1, 2, 3, 4, 5].map((n) => source.append(commandDraft(n))));

    // When a second store copies them
    const copy = await open('copy', () => 1n);
    const durable: number[] = [];
    copy.onDurable((entries) => durable.push(...entries.map((entry) => entry.op)));
    for (const entry of written) copy.enqueueCopy(entry);
    await copy.close();

    // Then it reported each op once, in order, and reads back the same bytes after a reopen
    expect(durable).toEqual([1, 2, 3, 4, 5]);
    const reopened = await open('copy', () => 1n);
    const read = await readAll(reopened);
    expect(read.map((entry) => encodeEntry(entry))).toEqual(written.map((e) => encodeEntry(e)));
    expect(reopened.lastOp).toBe(5);
  });

  it('refuses an entry that skips an op or goes back in time, taking nothing', async () => {
    const source = await open('source', () => 100n);
    const [first, second, third] = await Promise.all(
      [1, 2, 3].map((n) => source.append(commandDraft(n))),
    );
    const copy = await open('copy');
    copy.enqueueCopy(first);

    expect(() => copy.enqueueCopy(third)).toThrow(InvalidEntryError);
    expect(() => copy.enqueueCopy({ ...second, timestamp: first.timestamp - 1n })).toThrow(
      /below this journal's last timestamp/,
    );
    expect(copy.lastOp).toBe(1);
    copy.enqueueCopy(second);
    expect(copy.lastOp).toBe(2);
  });

  it('lets the copy take its own appends after the copied ops, with timestamps that never go back', async () => {
    const source = await open('source', () => 900n);
    const copied = await source.append(commandDraft(1));
    const copy = await open('copy', () => 10n);
    copy.enqueueCopy(copied);
    const own = await copy.append(commandDraft(2));
    expect(own.op).toBe(2);
    expect(own.timestamp).toBe(900n);
  });

  it('by default writes each group as one synced batch, which a reopen reads back byte for byte', async () => {
    // Given a source journal and a copy with the default settings
    const source = await open('source', () => 7_000_000n);
    const written = await Promise.all([1, 2, 3].map((n) => source.append(commandDraft(n))));
    const copy = await JournalStore.open(join(root, 'synced'));
    opened.push(copy);
    const writes: unknown[] = [];
    const batches = spyOnBatchWrites(writes);

    // When it copies them
    for (const entry of written) copy.enqueueCopy(entry);
    await copy.close();
    opened.splice(opened.indexOf(copy), 1);

    // Then every group was synced, and a reopen reads the same bytes
    batches.mockRestore();
    expect(writes.length).toBeGreaterThan(0);
    for (const options of writes) expect(options).toEqual({ sync: true });
    const reopened = await open('synced');
    expect((await readAll(reopened)).map((entry) => encodeEntry(entry))).toEqual(
      written.map((entry) => encodeEntry(entry)),
    );
  });

  it('with syncWrites off, writes its groups without an fsync and still reports and keeps them in op order', async () => {
    // Given a source journal and a copy that does not fsync its groups
    const source = await open('source', () => 7_000_000n);
    const written = await Promise.all([1, 2, 3].map((n) => source.append(commandDraft(n))));
    const copy = await JournalStore.open(join(root, 'unsynced'), { syncWrites: false });
    opened.push(copy);
    const writes: unknown[] = [];
    const batches = spyOnBatchWrites(writes);

    // When it copies them
    const durable: number[] = [];
    copy.onDurable((entries) => durable.push(...entries.map((entry) => entry.op)));
    for (const entry of written) copy.enqueueCopy(entry);
    await copy.close();
    opened.splice(opened.indexOf(copy), 1);

    // Then no group was fsynced; they were reported in order, and a reopen reads the same bytes
    batches.mockRestore();
    expect(writes.length).toBeGreaterThan(0);
    for (const options of writes) expect(options).toEqual({ sync: false });
    expect(durable).toEqual([1, 2, 3]);
    const reopened = await open('unsynced');
    expect((await readAll(reopened)).map((entry) => encodeEntry(entry))).toEqual(
      written.map((entry) => encodeEntry(entry)),
    );
  });

  it('stores a verified encoding it is given as is, reading back the same entries', async () => {
    // Given entries of a source journal and their encodings
    const source = await open('source', () => 9_000_000n);
    const written = await Promise.all([1, 2].map((n) => source.append(commandDraft(n))));

    // When a copy is given each entry with its encoding
    const copy = await open('encoded');
    const returned = written.map((entry) => copy.enqueueCopy(entry, encodeEntry(entry)));
    await copy.close();
    opened.splice(opened.indexOf(copy), 1);

    // Then it hands back the entries themselves, and a reopen reads the same bytes
    expect(returned).toEqual(written);
    const reopened = await open('encoded');
    expect((await readAll(reopened)).map((entry) => encodeEntry(entry))).toEqual(
      written.map((entry) => encodeEntry(entry)),
    );
  });
});

interface ChainedBatchWrites {
  _write(options: unknown): Promise<void>;
}

/** Records the options of every LevelDB batch write the stores make, and still writes. */
function spyOnBatchWrites(writes: unknown[]) {
  const prototype = ClassicLevel.prototype as unknown as {
    _chainedBatch(): ChainedBatchWrites;
  };
  const original = prototype._chainedBatch;
  return jest.spyOn(prototype, '_chainedBatch').mockImplementation(function (this: unknown) {
    const batch = original.call(this);
    const write = batch._write.bind(batch);
    batch._write = (options: unknown) => {
      writes.push(options);
      return write(options);
    };
    return batch;
  });
}
