import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { JournalStore } from '@once/journal/internal';
import { clientIdFromBigInt } from '@once/protocol/internal';
import { registerDraft } from '../__fixtures__/entry-drafts.fixture';
import { KeyedStore } from './keyed-store';
import { KeyedStateBehindError } from './keyed-state-behind.error';

/** A data directory with `op` entries, so a snapshot may be saved at any op up to it. */
async function journalWith(dir: string, entries: number): Promise<JournalStore> {
  const journal = await JournalStore.open(dir);
  for (let i = journal.lastOp; i < entries; i++) {
    await journal.append(registerDraft(clientIdFromBigInt(BigInt(i + 1)), 1));
  }
  return journal;
}

/** Writes a snapshot at `op` with the store's changes, the way the scheduler does. */
async function checkpoint(journal: JournalStore, store: KeyedStore, op: number): Promise<void> {
  const sealed = store.seal();
  await journal.saveSnapshot(op, Buffer.from('snapshot'), sealed);
  store.sealedWritten();
}

describe('KeyedStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keyed-store-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads back what it wrote, counts records per map and forgets deleted ones', () => {
    const store = new KeyedStore(undefined);
    store.set('ledger/accounts', 'a', 10);
    store.set('ledger/accounts', 'b', { owner: 'x' });
    store.set('ledger/references', 'a', true);
    expect(store.get('ledger/accounts', 'a')).toBe(10);
    expect(store.get('ledger/accounts', 'b')).toEqual({ owner: 'x' });
    expect(store.count('ledger/accounts')).toBe(2);
    store.set('ledger/accounts', 'a', undefined);
    expect(store.get('ledger/accounts', 'a')).toBeUndefined();
    expect(store.count('ledger/accounts')).toBe(1);
    expect(store.count('ledger/references')).toBe(1);
  });

  it('in memory only, keeps nothing of a deleted record', () => {
    const store = new KeyedStore(undefined);
    for (let i = 0; i < 100; i++) store.set('m/m', `k${i}`, i);
    for (let i = 0; i < 100; i++) store.set('m/m', `k${i}`, undefined);
    expect(store.stagedCount).toBe(0);
    expect(store.get('m/m', 'k1')).toBeUndefined();
    expect(store.marker().counts).toEqual([]);
    expect(store.count('m/m')).toBe(0);
  });

  it('hands out frozen copies: a value changed in place after set or get throws, the record stays', () => {
    const store = new KeyedStore(undefined);
    const written = { balance: 1 };
    store.set('m/m', 'k', written);
    written.balance = 2;
    const read = store.get('m/m', 'k') as { balance: number };
    expect(read).toEqual({ balance: 1 });
    expect(() => {
      read.balance = 3;
    }).toThrow(TypeError);
  });

  it('refuses a value that is not JSON, changing nothing', () => {
    const store = new KeyedStore(undefined);
    expect(() => store.set('m/m', 'k', () => 1)).toThrow(/not JSON/);
    expect(store.count('m/m')).toBe(0);
    expect(store.marker().counts).toEqual([]);
  });

  it('gives the same digest for the same records whatever the order and the detours of the writes', () => {
    const a = new KeyedStore(undefined);
    const b = new KeyedStore(undefined);
    a.set('m/m', 'x', 1);
    a.set('m/m', 'y', 2);
    b.set('m/m', 'y', 5);
    b.set('m/m', 'z', 9);
    b.set('m/m', 'x', 1);
    b.set('m/m', 'y', 2);
    b.set('m/m', 'z', undefined);
    expect(b.marker()).toEqual(a.marker());
    a.set('m/m', 'x', 3);
    expect(a.marker().digest).not.toBe(b.marker().digest);
  });

  it('persists with a snapshot, and a reopened data directory reads the records from disk', async () => {
    let journal = await journalWith(dir, 3);
    let store = new KeyedStore(journal.keyed);
    store.set('ledger/accounts', 'a', 10);
    store.set('ledger/accounts', 'b', 20);
    await checkpoint(journal, store, 2);
    store.set('ledger/accounts', 'a', 11);
    store.set('ledger/accounts', 'b', undefined);
    await checkpoint(journal, store, 3);
    const marker = store.marker();
    await journal.close();

    journal = await JournalStore.open(dir);
    store = new KeyedStore(journal.keyed, 0);
    store.restore(3, marker);
    expect(store.get('ledger/accounts', 'a')).toBe(11);
    expect(store.get('ledger/accounts', 'b')).toBeUndefined();
    expect(store.count('ledger/accounts')).toBe(1);
    expect(store.marker()).toEqual(marker);
    await journal.close();
  });

  it('reads LevelDB once for a record that is not there, however often it is asked for or written after', async () => {
    const journal = await journalWith(dir, 2);
    try {
      const first = new KeyedStore(journal.keyed);
      first.set('ledger/accounts', 'a', 1);
      await checkpoint(journal, first, 1);
      const reader = journal.keyed;
      const reads: string[] = [];
      const counting = {
        head: () => reader.head(),
        get: (generation: number, key: string) => {
          reads.push(key);
          return reader.get(generation, key);
        },
        records: (generation: number, prefix?: Buffer) => reader.records(generation, prefix),
      };
      const store = new KeyedStore(counting);
      store.restore(1, first.marker());
      expect(store.get('ledger/accounts', 'new')).toBeUndefined();
      expect(store.get('ledger/accounts', 'new')).toBeUndefined();
      store.set('ledger/accounts', 'new', 5);
      expect(store.get('ledger/accounts', 'a')).toBe(1);
      expect(reads).toEqual(['ledger/accounts\u0000new', 'ledger/accounts\u0000a']);
      expect(store.get('ledger/accounts', 'new')).toBe(5);
    } finally {
      await journal.close();
    }
  });

  it('refuses to restore a snapshot older than the records on disk (KEYED_STATE_BEHIND)', async () => {
    const journal = await journalWith(dir, 3);
    const store = new KeyedStore(journal.keyed);
    store.set('m/m', 'k', 1);
    await checkpoint(journal, store, 2);
    const older = store.marker();
    store.set('m/m', 'k', 2);
    await checkpoint(journal, store, 3);
    const reopened = new KeyedStore(journal.keyed);
    let error: unknown;
    try {
      reopened.restore(2, older);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(KeyedStateBehindError);
    expect(error).toMatchObject({ code: 'KEYED_STATE_BEHIND', snapshotOp: 2, recordsOp: 3 });
    await journal.close();
  });

  it('starts empty after a reset, reads nothing of the old records, and deletes them once a new snapshot is written', async () => {
    let journal = await journalWith(dir, 3);
    let store = new KeyedStore(journal.keyed);
    store.set('m/m', 'old', 1);
    await checkpoint(journal, store, 2);
    store.resetToGenesis();
    expect(store.get('m/m', 'old')).toBeUndefined();
    store.set('m/m', 'new', 2);
    await checkpoint(journal, store, 3);
    const marker = store.marker();
    await journal.close();

    journal = await JournalStore.open(dir);
    store = new KeyedStore(journal.keyed, 0);
    store.restore(3, marker);
    expect(store.get('m/m', 'new')).toBe(2);
    expect(store.get('m/m', 'old')).toBeUndefined();
    expect(journal.keyed.head()).toEqual({ generation: 2, op: 3 });
    // The first generation's record is gone from disk, not only hidden.
    expect(journal.keyed.get(1, 'm/m\u0000old')).toBeUndefined();
    await journal.close();
  });

  it('keeps changes whose snapshot failed for the next one, under the changes made since', async () => {
    const journal = await journalWith(dir, 3);
    const store = new KeyedStore(journal.keyed, 0);
    store.set('m/m', 'a', 1);
    store.set('m/m', 'b', 1);
    store.seal();
    store.set('m/m', 'b', 2);
    expect(store.get('m/m', 'a')).toBe(1);
    store.sealedFailed();
    expect(store.stagedCount).toBe(2);
    await checkpoint(journal, store, 3);
    const fresh = new KeyedStore(journal.keyed, 0);
    fresh.restore(3, store.marker());
    expect(fresh.get('m/m', 'a')).toBe(1);
    expect(fresh.get('m/m', 'b')).toBe(2);
    await journal.close();
  });

  it('property: random writes, persisted at random points and reopened, read as a store that never left memory', async () => {
    const write = fc.tuple(
      fc.constantFrom('s/a', 's/b'),
      fc.constantFrom('k1', 'k2', 'k3', 'k4', 'k5'),
      fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      fc.boolean(),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(write, { maxLength: 40 }), async (writes) => {
        const runDir = await mkdtemp(join(dir, 'run-'));
        let journal = await journalWith(runDir, writes.length + 1);
        let persisted = new KeyedStore(journal.keyed, 2);
        const memory = new KeyedStore(undefined);
        let op = 0;
        for (const [map, key, value, snapshotAfter] of writes) {
          memory.set(map, key, value);
          persisted.set(map, key, value);
          op++;
          if (snapshotAfter) {
            await checkpoint(journal, persisted, op);
            const marker = persisted.marker();
            await journal.close();
            journal = await JournalStore.open(runDir);
            persisted = new KeyedStore(journal.keyed, 2);
            persisted.restore(op, marker);
          }
        }
        expect(persisted.marker()).toEqual(memory.marker());
        for (const map of ['s/a', 's/b']) {
          expect(persisted.count(map)).toBe(memory.count(map));
          for (const key of ['k1', 'k2', 'k3', 'k4', 'k5']) {
            expect(persisted.get(map, key)).toEqual(memory.get(map, key));
          }
        }
        await journal.close();
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
