import { type EntryDraft, type Journal, type JournalEntry } from '@once/journal/internal';
import { EntryKind, InvalidEntryError } from '@once/journal';
import { eventually } from '@once/testing';

/**
 * The journal port less its snapshots: what a journal that leaves snapshots
 * to each node (the cluster's stream) implements.
 */
export type SnapshotlessJournal = Omit<Journal, 'saveSnapshot' | 'listSnapshots'>;

/** A write held by the backend: it reached it, and is not yet answered. */
export interface WriteHold {
  /** Resolves once the held write has reached the backend. */
  reached(): Promise<void>;
  /** Lets it (and what follows) through. */
  release(): Promise<void>;
}

/**
 * What the conformance suite needs of one journal implementation, for one
 * test: the journal itself, and real ways to make its backend hold or refuse
 * a write. Every harness starts from an empty journal.
 */
export interface JournalPortHarness<J extends SnapshotlessJournal = Journal> {
  /** Opens the journal: empty the first time, the same one again after `close`. */
  open(): Promise<J>;
  /** Makes the backend refuse the next write of `journal` (a real failure, not a stub). */
  breakWrites(journal: J): Promise<void>;
  /** Makes the backend hold the next write of `journal` before it is answered. */
  holdWrites(journal: J): Promise<WriteHold>;
  /** Removes what the harness made; every journal it opened is closed by then. */
  cleanup(): Promise<void>;
}

/** A COMMAND draft whose fields all derive from `n`, with a body of `bodyBytes`. */
export function portDraft(n: number, bodyBytes = 16): EntryDraft {
  const body = Buffer.alloc(bodyBytes);
  for (let i = 0; i < bodyBytes; i++) body[i] = (n * 31 + i) & 0xff;
  return {
    kind: n % 5 === 0 ? EntryKind.Register : EntryKind.Command,
    client: (n % 997).toString(16).padStart(32, '0'),
    session: n % 7,
    request: n,
    userId: (n * 13) % 4096,
    requestChecksum: Buffer.alloc(16, n & 0xff),
    body,
  };
}

/** Every entry `journal.readBatches(fromOp, batchSize)` yields, flattened. */
export async function readAllEntries(
  journal: SnapshotlessJournal,
  fromOp = 1,
  batchSize?: number,
): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  for await (const batch of journal.readBatches(fromOp, batchSize)) entries.push(...batch);
  return entries;
}

/** The fields an entry is compared by (buffers as hex, so a mismatch reads well). */
export function comparable(entry: JournalEntry) {
  return {
    op: entry.op,
    timestamp: entry.timestamp,
    kind: entry.kind,
    client: entry.client,
    session: entry.session,
    request: entry.request,
    userId: entry.userId,
    requestChecksum: Buffer.from(entry.requestChecksum).toString('hex'),
    body: Buffer.from(entry.body).toString('hex'),
  };
}

/** Records what `journal` reports durable, op by op. */
function durableOps(journal: SnapshotlessJournal): number[] {
  const ops: number[] = [];
  journal.onDurable((entries) => ops.push(...entries.map((entry) => entry.op)));
  return ops;
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * The contract of the journal port (libs/journal/src/journal-port.ts), run
 * against one implementation: `createHarness` gives each test a fresh, empty
 * journal and the means to reopen it, hold its writes and break them. A
 * journal without snapshots (`{ snapshots: false }`) is held to the rest.
 */
export function describeJournalPort<J extends Journal>(
  name: string,
  createHarness: () => Promise<JournalPortHarness<J>>,
): void;
export function describeJournalPort<J extends SnapshotlessJournal>(
  name: string,
  createHarness: () => Promise<JournalPortHarness<J>>,
  scope: { readonly snapshots: false },
): void;
export function describeJournalPort<J extends SnapshotlessJournal>(
  name: string,
  createHarness: () => Promise<JournalPortHarness<J>>,
  scope: { readonly snapshots: boolean } = { snapshots: true },
): void {
  describe(`the journal port, as ${name} implements it`, () => {
    let harness: JournalPortHarness<J>;
    const opened: J[] = [];
    const open = async (): Promise<J> => {
      const journal = await harness.open();
      opened.push(journal);
      return journal;
    };
    const reopen = async (journal: J): Promise<J> => {
      await journal.close();
      return open();
    };
    const whenDurable = (journal: SnapshotlessJournal, what: string) =>
      eventually(() => journal.pendingCount === 0, what, 30_000);

    beforeEach(async () => {
      harness = await createHarness();
    });
    afterEach(async () => {
      await Promise.allSettled(opened.splice(0).map((journal) => journal.close()));
      await harness.cleanup();
    });

    it('given an empty journal, when entries are enqueued, then ops run from 1 in call order and timestamps never decrease', async () => {
      const journal = await open();
      expect(journal.lastOp).toBe(0);
      const first = [1, 2, 3].map((n) => journal.enqueue(portDraft(n)));
      await new Promise((resolve) => setImmediate(resolve));
      const second = [4, 5].map((n) => journal.enqueue(portDraft(n)));
      await whenDurable(journal, 'the first five entries durable');
      const third = [journal.enqueue(portDraft(6))];

      const entries = [...first, ...second, ...third];
      expect(entries.map((entry) => entry.op)).toEqual(range(1, 6));
      expect(journal.lastOp).toBe(6);
      for (let i = 1; i < entries.length; i++) {
        expect(entries[i].timestamp >= entries[i - 1].timestamp).toBe(true);
      }
    });

    it('when entries are enqueued in bursts, then onDurable reports every op exactly once, in op order', async () => {
      const journal = await open();
      const reported = durableOps(journal);
      let n = 0;
      for (const burst of [1, 40, 3, 200, 1, 56]) {
        for (let i = 0; i < burst; i++) journal.enqueue(portDraft(++n));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await whenDurable(journal, 'all 301 entries durable');

      expect(reported).toEqual(range(1, 301));
      expect(journal.writeStats.entries).toBe(301);
      expect(journal.writeStats.batches).toBeGreaterThanOrEqual(1);
      expect(journal.writeStats.batches).toBeLessThanOrEqual(301);
    });

    it('given the backend holds a write, then nothing is reported durable until it answers', async () => {
      const journal = await open();
      const reported = durableOps(journal);
      journal.enqueue(portDraft(1));
      await whenDurable(journal, 'op 1 durable');

      const hold = await harness.holdWrites(journal);
      [2, 3, 4].forEach((n) => journal.enqueue(portDraft(n)));
      await hold.reached();
      expect(reported).toEqual([1]);
      expect(journal.pendingCount).toBe(3);

      await hold.release();
      await whenDurable(journal, 'the held entries durable');
      expect(reported).toEqual([1, 2, 3, 4]);
    });

    it('given entries made durable, when the journal is reopened, then readBatches returns exactly them, from any op, in any batch size', async () => {
      let journal = await open();
      const sizes = [0, 1, 92, 5000, 16, 40_000, 3];
      const enqueued = range(1, 40).map((n) =>
        journal.enqueue(portDraft(n, sizes[n % sizes.length])),
      );
      await whenDurable(journal, 'all 40 entries durable');
      const expected = enqueued.map(comparable);

      journal = await reopen(journal);
      expect(journal.lastOp).toBe(40);
      expect((await readAllEntries(journal, 1, 7)).map(comparable)).toEqual(expected);
      expect((await readAllEntries(journal, 17)).map(comparable)).toEqual(expected.slice(16));
      expect(await readAllEntries(journal, 41)).toEqual([]);
      const batches: number[] = [];
      for await (const batch of journal.readBatches(1, 16)) batches.push(batch.length);
      expect(batches.every((length) => length >= 1 && length <= 16)).toBe(true);
      expect(batches.reduce((sum, length) => sum + length, 0)).toBe(40);

      const next = journal.enqueue(portDraft(41));
      expect(next.op).toBe(41);
      expect(next.timestamp >= enqueued[39].timestamp).toBe(true);
    });

    it('given an empty journal, then readBatches yields nothing', async () => {
      const journal = await open();
      expect(await readAllEntries(journal)).toEqual([]);
    });

    it('when settings are updated, then they read back, also after a reopen', async () => {
      let journal = await open();
      expect(journal.settings).toBeNull();
      await journal.updateSettings({ clientsMax: 10, nested: { ring: [1, 2] } });
      expect(journal.settings).toEqual({ clientsMax: 10, nested: { ring: [1, 2] } });
      await journal.updateSettings({ clientsMax: 11 });

      journal = await reopen(journal);
      expect(journal.settings).toEqual({ clientsMax: 11 });
    });

    it('then the node secret is 32 bytes and the same after a reopen', async () => {
      let journal = await open();
      const secret = Buffer.from(journal.nodeSecret);
      expect(secret).toHaveLength(32);
      journal = await reopen(journal);
      expect(journal.nodeSecret.equals(secret)).toBe(true);
    });

    // A journal without snapshots leaves them to each node: nothing to hold it to here.
    if (scope.snapshots)
      it('when a snapshot is saved at a durable op, then it is listed after a reopen; one beyond the durable end is refused', async () => {
        // Only called with `snapshots: true` for a full Journal (see the overloads).
        let journal = (await open()) as unknown as Journal;
        range(1, 5).forEach((n) => journal.enqueue(portDraft(n)));
        await whenDurable(journal, 'five entries durable');
        await expect(journal.saveSnapshot(6, Buffer.from('too far'))).rejects.toThrow(RangeError);
        await journal.saveSnapshot(3, Buffer.from('state at 3'));
        await journal.saveSnapshot(5, Buffer.from('state at 5'));

        journal = (await reopen(journal as unknown as J)) as unknown as Journal;
        const records = await journal.listSnapshots();
        expect(records.map((record) => record.op)).toEqual([5, 3]);
        expect(records[0]).toEqual({ op: 5, payload: Buffer.from('state at 5') });
      });

    it('when a draft is invalid, then enqueue throws InvalidEntryError and takes no op', async () => {
      const journal = await open();
      expect(() => journal.enqueue({ ...portDraft(1), client: 'not hex' })).toThrow(
        InvalidEntryError,
      );
      expect(() => journal.enqueue({ ...portDraft(1), userId: -1 })).toThrow(InvalidEntryError);
      expect(journal.lastOp).toBe(0);
      expect(journal.enqueue(portDraft(1)).op).toBe(1);
    });

    it('when the journal is closed, then what was queued is durable first, and enqueue throws JOURNAL_CLOSED', async () => {
      const journal = await open();
      const reported = durableOps(journal);
      range(1, 50).forEach((n) => journal.enqueue(portDraft(n)));
      await journal.close();
      expect(reported).toEqual(range(1, 50));

      expect(() => journal.enqueue(portDraft(51))).toThrow(
        expect.objectContaining({ code: 'JOURNAL_CLOSED' }),
      );
      expect(journal.lastOp).toBe(50);
      await journal.close();
    });

    it('given the backend refuses a write, then the journal fails stop: one failure, nothing more durable, nothing more taken', async () => {
      const journal = await open();
      const reported = durableOps(journal);
      const failures: Error[] = [];
      journal.onFailure((error) => failures.push(error));
      range(1, 3).forEach((n) => journal.enqueue(portDraft(n)));
      await whenDurable(journal, 'three entries durable');

      await harness.breakWrites(journal);
      range(4, 6).forEach((n) => journal.enqueue(portDraft(n)));
      await eventually(() => failures.length > 0, 'the failure reported', 90_000);

      expect(failures).toHaveLength(1);
      expect(typeof (failures[0] as { code?: unknown }).code).toBe('string');
      expect(reported).toEqual([1, 2, 3]);
      expect(journal.pendingCount).toBe(0);
      expect(() => journal.enqueue(portDraft(7))).toThrow(failures[0]);
      expect(journal.lastOp).toBe(6);
      await expect(journal.updateSettings({ after: 'failure' })).rejects.toBe(failures[0]);
      await journal.close();
      expect(failures).toHaveLength(1);
      expect(reported).toEqual([1, 2, 3]);
    });
  });
}
