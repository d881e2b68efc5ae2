import fc from 'fast-check';
import { ZERO_CHECKSUM } from '@once/protocol/internal';
import { type ClientId } from '@once/protocol';
import { ClientTable } from './client-table';
import { type ClientTableHeader } from './client-table-header';
import { createCachedReply, type ClientEntry } from './client-entry';
import { decodeEntryRecord, encodeEntryRecord } from './client-entry-record';
import { TableSnapshotInvalidError } from './table-snapshot-invalid.error';
import { CLIENTS, journalArb, runTable, view } from './__fixtures__/table-history.fixture';

/**
 * The table persisted record by record, as the engine does at each checkpoint: the clients
 * {@link ClientTable.takeChanged} names are written as JSON records (or deleted), with the
 * header, and {@link ClientTable.fromEntries} rebuilds the table from them at boot.
 */

const id = (n: number): ClientId => n.toString(16).padStart(32, '0');
const sum = (n: number): Buffer => Buffer.alloc(16, n);

/** What the engine keeps: the header and one JSON record per session, under its client id. */
class Records {
  readonly rows = new Map<ClientId, string>();
  header: ClientTableHeader;

  constructor(table: ClientTable) {
    this.header = table.header();
  }

  /**
   * A checkpoint: writes the sessions `table` changed since the last one, and its header.
   * Checks on the way that the table named exactly the sessions whose record changes: any
   * other of `clients` keeps its record, and a named one gets a new record or has none
   * before and after (created and removed in between); and that it said rightly of each
   * whether its record existed.
   */
  checkpoint(table: ClientTable, clients: readonly ClientId[] = []): void {
    const recordOf = (client: ClientId): string | undefined => {
      const entry = table.get(client);
      return entry && JSON.stringify(encodeEntryRecord(entry));
    };
    const changes = table.takeChanges();
    const named = changes.map(([client]) => client);
    // Whether a named client had a record is what the table says it had.
    for (const [client, existed] of changes) expect(existed).toBe(this.rows.has(client));
    for (const client of clients) {
      if (named.includes(client)) {
        const [before, after] = [this.rows.get(client), recordOf(client)];
        if (before !== undefined || after !== undefined) expect(after).not.toBe(before);
      } else {
        expect(recordOf(client)).toBe(this.rows.get(client));
      }
    }
    for (const client of named) {
      const record = recordOf(client);
      if (record === undefined) this.rows.delete(client);
      else this.rows.set(client, record);
    }
    this.header = table.header();
  }

  /** A boot: the table the records describe. */
  rebuild(): ClientTable {
    const entries = [...this.rows].map(([client, json]) =>
      decodeEntryRecord(client, JSON.parse(json)),
    );
    return ClientTable.fromEntries(this.header, entries);
  }
}

describe('ClientTable persisted as per-session records', () => {
  it('the records of the sessions named at each checkpoint rebuild the table byte for byte, and the rebuilt table continues as the original', () => {
    fc.assert(
      fc.property(
        journalArb,
        fc.array(fc.constantFrom('none', 'checkpoint', 'reboot'), { maxLength: 60 }),
        (journal, points) => {
          const direct = new ClientTable({ capacity: 3, ring: 2 });
          let live = new ClientTable({ capacity: 3, ring: 2 });
          live.trackChanges();
          const records = new Records(live);
          let timestamp = 1000n;
          journal.forEach(([step, dt], index) => {
            const op = index + 1;
            timestamp += BigInt(dt);
            expect(runTable(live, step, op, timestamp)).toEqual(
              runTable(direct, step, op, timestamp),
            );
            const point = points[index] ?? 'none';
            if (point === 'none') return;
            records.checkpoint(live, CLIENTS);
            const rebuilt = records.rebuild();
            expect(rebuilt.snapshot()).toEqual(live.snapshot());
            if (point === 'reboot') {
              rebuilt.trackChanges();
              live = rebuilt;
            }
          });
          records.checkpoint(live, CLIENTS);
          expect(live.takeChanged()).toEqual([]);
          expect(live.snapshot()).toEqual(direct.snapshot());
          expect(records.rebuild().snapshot()).toEqual(direct.snapshot());
          expect([...records.rebuild().entries()].map(view)).toEqual(
            [...direct.entries()].map(view),
          );
          // A record decoded and encoded again is the same text.
          for (const [client, json] of records.rows) {
            const again = JSON.stringify(
              encodeEntryRecord(decodeEntryRecord(client, JSON.parse(json))),
            );
            expect(again).toBe(json);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  describe('takeChanged', () => {
    const A = id(0xa);
    const B = id(0xb);
    const C = id(0xc);

    it('is empty while tracking is off, whatever changes', () => {
      const table = new ClientTable({ capacity: 1, ring: 1 });
      table.commitRegister(1, 1n, A, 1);
      table.commitReply(2, 2n, A, 1, 1, sum(1), Buffer.from('r'));
      table.commitRegister(3, 3n, B, 1);
      table.remove(B);
      expect(table.takeChanged()).toEqual([]);
    });

    it('notes only what changes after tracking is turned on, once per client, and forgets what it returns', () => {
      const table = new ClientTable({ capacity: 4, ring: 1 });
      table.commitRegister(1, 1n, A, 1);
      table.trackChanges();
      table.trackChanges();
      expect(table.takeChanged()).toEqual([]);
      table.commitRegister(2, 2n, B, 1);
      table.commitReply(3, 3n, B, 2, 1, sum(1), Buffer.from('r'));
      expect(table.takeChanged()).toEqual([B]);
      expect(table.takeChanged()).toEqual([]);
    });

    it('says of each client whether it had an entry at the previous take: created, resumed, removed and created again', () => {
      const table = new ClientTable({ capacity: 4, ring: 1 });
      table.trackChanges();
      table.commitRegister(1, 1n, A, 1);
      table.commitRegister(2, 2n, B, 1);
      table.remove(B);
      expect(table.takeChanges()).toEqual([
        [A, false],
        [B, false],
      ]);
      table.commitRegister(3, 3n, A, 1);
      table.remove(A);
      table.commitRegister(4, 4n, A, 1);
      table.commitRegister(5, 5n, C, 1);
      expect(table.takeChanges()).toEqual([
        [A, true],
        [C, false],
      ]);
    });

    it('names nothing after a refused REGISTER (another user’s client id)', () => {
      const table = new ClientTable({ capacity: 2, ring: 1 });
      table.commitRegister(1, 1n, A, 1);
      table.trackChanges();
      expect(table.commitRegister(2, 2n, A, 2).kind).toBe('owned-by-other-user');
      expect(table.takeChanged()).toEqual([]);
    });

    it('returns the clients in ascending order, not in the order of the changes', () => {
      const table = new ClientTable({ capacity: 8, ring: 1 });
      table.trackChanges();
      const clients = [id(0xff), 'f0000000000000000000000000000001', id(1), id(0x10), id(2)];
      clients.forEach((client, index) => table.commitRegister(index + 1, 1n, client, 1));
      expect(table.takeChanged()).toEqual([
        id(1),
        id(2),
        id(0x10),
        id(0xff),
        'f0000000000000000000000000000001',
      ]);
    });

    it('names a new session and the session it evicted', () => {
      const table = new ClientTable({ capacity: 1, ring: 1 });
      table.commitRegister(1, 1n, A, 1);
      table.trackChanges();
      table.commitRegister(2, 2n, B, 1);
      expect(table.takeChanged()).toEqual([A, B]);
    });

    it('names a resumed session', () => {
      const table = new ClientTable({ capacity: 2, ring: 1 });
      table.commitRegister(1, 1n, A, 1);
      table.trackChanges();
      table.commitRegister(2, 2n, A, 1);
      expect(table.takeChanged()).toEqual([A]);
    });

    it('names a session a reply was committed to', () => {
      const table = new ClientTable({ capacity: 2, ring: 1 });
      table.commitRegister(1, 1n, A, 1);
      table.commitRegister(2, 2n, B, 1);
      table.trackChanges();
      table.commitReply(3, 3n, A, 1, 1, sum(1), Buffer.from('r'));
      expect(table.takeChanged()).toEqual([A]);
    });

    it('names a removed session, and nothing for a removal of no session', () => {
      const table = new ClientTable({ capacity: 2, ring: 1 });
      table.commitRegister(1, 1n, A, 1);
      table.trackChanges();
      table.remove(B);
      expect(table.takeChanged()).toEqual([]);
      table.remove(A);
      expect(table.takeChanged()).toEqual([A]);
    });

    it('names the sessions new limits evict and those whose ring they trim, and no other', () => {
      const table = new ClientTable({ capacity: 3, ring: 2 });
      table.commitRegister(1, 1n, A, 1);
      table.commitRegister(2, 2n, B, 1);
      table.commitRegister(3, 3n, C, 1);
      table.commitReply(4, 4n, B, 2, 1, sum(1), Buffer.from('b1'));
      table.commitReply(5, 5n, B, 2, 2, sum(2), Buffer.from('b2'));
      table.commitReply(6, 6n, C, 3, 1, sum(1), Buffer.from('c1'));
      table.trackChanges();
      // A is evicted; B's ring of two is trimmed to one; C's ring of one stays.
      table.setLimits({ capacity: 2, ring: 1 });
      expect(table.takeChanged()).toEqual([A, B]);
    });

    it('names the sessions an expiry removed', () => {
      const table = new ClientTable({ capacity: 3, ring: 1 });
      table.commitRegister(1, 10n, A, 1);
      table.commitRegister(2, 20n, B, 1);
      table.commitRegister(3, 30n, C, 1);
      table.trackChanges();
      table.expireBefore(25n);
      expect(table.takeChanged()).toEqual([A, B]);
    });

    it('names a session created and removed since the last call (its record is deleted, if any)', () => {
      const table = new ClientTable({ capacity: 2, ring: 1 });
      table.trackChanges();
      table.commitRegister(1, 1n, A, 1);
      table.remove(A);
      expect(table.takeChanged()).toEqual([A]);
      expect(table.get(A)).toBeUndefined();
    });
  });

  describe('header and fromEntries', () => {
    const reply = (request: number, checksum = sum(request)) =>
      createCachedReply(request, checksum, Buffer.from(`r${request}`));
    const entry = (fields: Partial<ClientEntry> & { client: ClientId }): ClientEntry => ({
      userId: 1,
      epoch: 1,
      watermark: 0,
      watermarkChecksum: ZERO_CHECKSUM,
      latestCommitOp: 1,
      latestCommitTimestamp: 1n,
      replies: [],
      ...fields,
    });
    /** An entry with requests 1..2 committed, its ring holding both. */
    const answered = (client: ClientId, op = 3): ClientEntry =>
      entry({
        client,
        watermark: 2,
        watermarkChecksum: sum(2),
        latestCommitOp: op,
        replies: [reply(1), reply(2)],
      });

    function expectInvalid(header: ClientTableHeader, entries: Iterable<ClientEntry>): void {
      let error: unknown;
      try {
        ClientTable.fromEntries(header, entries);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(TableSnapshotInvalidError);
      expect((error as TableSnapshotInvalidError).code).toBe('TABLE_SNAPSHOT_INVALID');
    }

    it('the header is the limits and the size, as plain JSON', () => {
      const table = new ClientTable({ capacity: 5, ring: 3 });
      table.commitRegister(1, 1n, id(1), 1);
      expect(table.header()).toEqual({ capacity: 5, ring: 3, size: 1 });
      expect(JSON.parse(JSON.stringify(table.header()))).toEqual(table.header());
    });

    it('puts entries given in any order back in eviction order, ties on op by lowest client id', () => {
      const table = ClientTable.fromEntries({ capacity: 4, ring: 2 + 0, size: 4 }, [
        answered(id(9), 5),
        entry({ client: id(3), latestCommitOp: 2 }),
        entry({ client: id(2), latestCommitOp: 2 }),
        entry({ client: id(7) }),
      ]);
      expect([...table.entries()].map((e) => e.client)).toEqual([id(7), id(2), id(3), id(9)]);
      // At capacity, the first in eviction order goes.
      const result = table.commitRegister(6, 2n, id(1), 1);
      expect(result.kind === 'registered' && result.evicted?.client).toBe(id(7));
    });

    it('sets the op and time bounds of later commits from the last entry, as restore does', () => {
      const table = ClientTable.fromEntries({ capacity: 2, ring: 2, size: 2 }, [
        entry({ client: id(1), latestCommitOp: 4, epoch: 4, latestCommitTimestamp: 40n }),
        entry({ client: id(2), latestCommitOp: 7, epoch: 7, latestCommitTimestamp: 70n }),
      ]);
      const code = (run: () => unknown): unknown => {
        try {
          run();
        } catch (error) {
          return (error as { code?: unknown }).code;
        }
        return undefined;
      };
      expect(code(() => table.commitRegister(7, 70n, id(3), 1))).toBe('TABLE_INVARIANT');
      expect(code(() => table.commitRegister(8, 69n, id(3), 1))).toBe('TABLE_INVARIANT');
      table.commitRegister(8, 70n, id(3), 1);
    });

    it('shares no mutable state with the entries it was given', () => {
      const source = new ClientTable({ capacity: 2, ring: 3 });
      source.commitRegister(1, 1n, id(1), 1);
      source.commitReply(2, 2n, id(1), 1, 1, sum(1), Buffer.from('r1'));
      source.commitReply(3, 3n, id(1), 1, 2, sum(2), Buffer.from('r2'));
      const before = source.snapshot();
      const copy = ClientTable.fromEntries(source.header(), source.entries());
      copy.commitReply(4, 4n, id(1), 1, 3, sum(3), Buffer.from('r3'));
      expect(source.snapshot()).toEqual(before);
      expect(copy.get(id(1))?.watermark).toBe(3);
    });

    it('accepts an empty table', () => {
      const table = ClientTable.fromEntries({ capacity: 1, ring: 1, size: 0 }, []);
      expect(table.snapshot()).toEqual(new ClientTable({ capacity: 1, ring: 1 }).snapshot());
    });

    const header = { capacity: 4, ring: 2, size: 1 };
    const cases: [string, ClientTableHeader, ClientEntry[]][] = [
      ['a header that is not an object', null as unknown as ClientTableHeader, []],
      ['capacity 0', { ...header, capacity: 0, size: 0 }, []],
      ['a capacity above 2^32 - 1', { ...header, capacity: 2 ** 32 }, [entry({ client: id(1) })]],
      ['ring 0', { ...header, ring: 0 }, [entry({ client: id(1) })]],
      ['a fractional ring', { ...header, ring: 1.5 }, [entry({ client: id(1) })]],
      ['a negative size', { ...header, size: -1 }, []],
      ['a fractional size', { ...header, size: 0.5 }, []],
      [
        'a size that is not a number',
        { ...header, size: '1' as unknown as number },
        [entry({ client: id(1) })],
      ],
      [
        'a size above capacity',
        { capacity: 1, ring: 1, size: 2 },
        [entry({ client: id(1) }), entry({ client: id(2), latestCommitOp: 2 })],
      ],
      [
        'fewer entries than the size (a lost record)',
        { ...header, size: 2 },
        [entry({ client: id(1) })],
      ],
      [
        'more entries than the size (a record too many)',
        header,
        [entry({ client: id(1) }), entry({ client: id(2), latestCommitOp: 2 })],
      ],
      [
        'a client twice',
        { ...header, size: 2 },
        [entry({ client: id(1) }), entry({ client: id(1), latestCommitOp: 2 })],
      ],
      ['more replies than the ring', { ...header, ring: 1 }, [answered(id(1))]],
      [
        'timestamps decreasing in eviction order',
        { ...header, size: 2 },
        [
          entry({ client: id(2), latestCommitOp: 2, latestCommitTimestamp: 8n }),
          entry({ client: id(1), latestCommitOp: 1, latestCommitTimestamp: 9n }),
        ],
      ],
      ['an entry that is not an object', header, [null as unknown as ClientEntry]],
      ['a client that is not a client id', header, [entry({ client: 'A'.repeat(32) })]],
      ['a negative userId', header, [entry({ client: id(1), userId: -1 })]],
      ['an unsafe latestCommitOp', header, [entry({ client: id(1), latestCommitOp: 2 ** 53 })]],
      [
        'a timestamp that is not a bigint',
        header,
        [entry({ client: id(1), latestCommitTimestamp: 1 as unknown as bigint })],
      ],
      [
        'a timestamp above 2^64 - 1',
        header,
        [entry({ client: id(1), latestCommitTimestamp: 1n << 64n })],
      ],
      [
        'replies that are not an array',
        header,
        [entry({ client: id(1), replies: {} as unknown as ClientEntry['replies'] })],
      ],
      ['epoch 0', header, [entry({ client: id(1), epoch: 0 })]],
      [
        'latestCommitOp below epoch',
        header,
        [entry({ client: id(1), epoch: 2, latestCommitOp: 1 })],
      ],
      [
        'more replies than requests',
        header,
        [
          entry({
            client: id(1),
            watermark: 1,
            watermarkChecksum: sum(1),
            replies: [reply(0), reply(1)],
          }),
        ],
      ],
      ['a watermark without its reply', header, [entry({ client: id(1), watermark: 1 })]],
      [
        'a reply that is not an object',
        header,
        [
          entry({
            client: id(1),
            watermark: 1,
            replies: [null as unknown as ReturnType<typeof reply>],
          }),
        ],
      ],
      [
        'a ring out of sequence',
        header,
        [
          entry({
            client: id(1),
            watermark: 3,
            watermarkChecksum: sum(2),
            replies: [reply(1), reply(2)],
          }),
        ],
      ],
      [
        'a requestChecksum that is not 16 bytes',
        header,
        [
          entry({
            client: id(1),
            watermark: 1,
            watermarkChecksum: Buffer.alloc(15, 1),
            replies: [reply(1, Buffer.alloc(15, 1))],
          }),
        ],
      ],
      [
        "a watermarkChecksum other than the newest reply's",
        header,
        [{ ...answered(id(1)), watermarkChecksum: sum(1) }],
      ],
      [
        'a watermarkChecksum other than zero without a reply',
        header,
        [entry({ client: id(1), watermarkChecksum: sum(1) })],
      ],
    ];
    it.each(cases)('refuses %s with TABLE_SNAPSHOT_INVALID', (_name, badHeader, entries) => {
      expectInvalid(badHeader, entries);
    });

    it('stops reading a runaway iterable at the first entry beyond the header’s size', () => {
      let read = 0;
      function* endless(): Generator<ClientEntry> {
        while (read < 100) {
          read++;
          yield entry({ client: id(read), latestCommitOp: read, epoch: read });
        }
      }
      expectInvalid({ capacity: 8, ring: 1, size: 2 }, endless());
      expect(read).toBe(3);
    });
  });
});
