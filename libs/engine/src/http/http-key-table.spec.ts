import fc from 'fast-check';
import { SnapshotInvalidError } from '../engine-snapshot-codec';
import { KeyedStore } from '../keyed/keyed-store';
import {
  HTTP_KEYS_MAP,
  type HttpKeyRecord,
  HttpKeyTable,
  HttpKeyTableInvariantError,
  responseOf,
} from './http-key-table';

const MS = 1_000_000n;
const START = 1_700_000_000_000n * MS;

function record(op: number, atMs: number, fingerprint = 1, body = `{"op":${op}}`): HttpKeyRecord {
  return {
    op,
    timestamp: START + BigInt(atMs) * MS,
    fingerprint: Buffer.alloc(16, fingerprint),
    status: 201,
    body: Buffer.from(body),
  };
}

function keysOf(table: HttpKeyTable): string[] {
  return [...table.entries()].map(([key]) => key);
}

describe('HttpKeyTable', () => {
  it('remembers a response per key, in op order', () => {
    const table = new HttpKeyTable();
    table.record('s\na', record(3, 0), 10);
    table.record('s\nb', record(5, 1, 2, ''), 10);
    expect(table.size).toBe(2);
    expect(keysOf(table)).toEqual(['s\na', 's\nb']);
    expect(responseOf(table.get('s\na')!)).toEqual({
      status: 201,
      body: Buffer.from('{"op":3}'),
      op: 3,
    });
    expect(table.get('s\nb')!.body.length).toBe(0);
    expect(table.get('s\nc')).toBeUndefined();
    table.assertInvariants(10);
  });

  it('forgets keys older than the retention by journal time, oldest first, and no others', () => {
    const table = new HttpKeyTable();
    table.record('a', record(1, 0), 10);
    table.record('b', record(2, 100), 10);
    table.record('c', record(3, 200), 10);
    // At 1100 ms with a retention of 1000 ms: keys recorded before 100 ms go.
    expect(table.expire(START + 1100n * MS, 1000)).toBe(1);
    expect(keysOf(table)).toEqual(['b', 'c']);
    // A key exactly as old as the retention stays.
    expect(table.expire(START + 1100n * MS, 1000)).toBe(0);
    expect(table.expire(START + 5000n * MS, 1000)).toBe(2);
    expect(table.size).toBe(0);
    expect(table.earlyForgets).toBe(0);
  });

  it('holds at most the bound: a new key forgets the oldest first, counted as early forgets', () => {
    const table = new HttpKeyTable();
    for (let op = 1; op <= 3; op++) expect(table.record(`k${op}`, record(op, op), 3)).toBe(0);
    expect(table.record('k4', record(4, 4), 3)).toBe(1);
    expect(keysOf(table)).toEqual(['k2', 'k3', 'k4']);
    expect(table.bound(1)).toBe(2);
    expect(keysOf(table)).toEqual(['k4']);
    expect(table.earlyForgets).toBe(3);
    table.assertInvariants(1);
  });

  it('refuses a key it holds, an op out of order, an earlier time and a bad fingerprint', () => {
    const table = new HttpKeyTable();
    table.record('a', record(5, 10), 10);
    expect(() => table.record('a', record(6, 10), 10)).toThrow(HttpKeyTableInvariantError);
    expect(() => table.record('b', record(5, 10), 10)).toThrow(HttpKeyTableInvariantError);
    expect(() => table.record('b', record(6, 9), 10)).toThrow(HttpKeyTableInvariantError);
    expect(() => table.record('b', { ...record(6, 10), fingerprint: Buffer.alloc(8) }, 10)).toThrow(
      HttpKeyTableInvariantError,
    );
    // Even once forgotten, an older op cannot come back.
    table.expire(START + 10_000n * MS, 1);
    expect(() => table.record('a', record(4, 10), 10)).toThrow(HttpKeyTableInvariantError);
    expect(() => table.assertInvariants(0)).not.toThrow();
  });

  it('keeps its records in the keyed store as a list from the oldest key, under a reserved map', () => {
    const store = new KeyedStore(undefined);
    const table = new HttpKeyTable(store);
    table.record('s\na', record(1, 0), 10);
    table.record('s\nb', record(2, 0, 2, ''), 10);
    expect(store.count(HTTP_KEYS_MAP)).toBe(2);
    // No keyed state can take the name: theirs are `state/map`.
    expect(HTTP_KEYS_MAP).not.toContain('/');
    expect(store.get(HTTP_KEYS_MAP, 's\na')).toEqual({
      op: 1,
      at: String(START),
      fp: '01'.repeat(16),
      status: 201,
      body: Buffer.from('{"op":1}').toString('base64'),
      next: 's\nb',
    });
    expect(store.get(HTTP_KEYS_MAP, 's\nb')).not.toHaveProperty('next');
    table.expire(START + 10n * MS, 1);
    expect(store.count(HTTP_KEYS_MAP)).toBe(0);
    expect(store.marker().counts).toEqual([]);
  });

  it('encodes its section to bytes that decode over the same records to the same table, and encode again alike', () => {
    const store = new KeyedStore(undefined);
    const table = new HttpKeyTable(store);
    table.record('user 7|POST /a\nkey-é', record(2, 0, 3), 10);
    table.record('user 7|POST /a\nkey-2', record(4, 0, 4, ''), 10);
    const bytes = table.encode();
    const back = HttpKeyTable.decode(bytes, store);
    expect([...back.entries()]).toEqual([...table.entries()]);
    expect(back.encode()).toEqual(bytes);
    back.assertInvariants(2);
    // The decoded table continues after the last op it holds, not before.
    expect(() => back.record('x', record(4, 1), 10)).toThrow(HttpKeyTableInvariantError);
    back.record('x', record(5, 1), 10);
    back.assertInvariants(3);
    const empty = new HttpKeyTable().encode();
    expect(empty.readUInt8(0)).toBe(2);
    expect(HttpKeyTable.decode(empty, new KeyedStore(undefined)).size).toBe(0);
  });

  it('refuses bytes that are not a table: truncated, trailing, unknown format, no head, another count than the records', () => {
    const store = new KeyedStore(undefined);
    const table = new HttpKeyTable(store);
    table.record('a', record(1, 0), 10);
    table.record('b', record(2, 0), 10);
    const bytes = table.encode();
    expect(() => HttpKeyTable.decode(bytes.subarray(0, bytes.length - 1), store)).toThrow(
      SnapshotInvalidError,
    );
    expect(() => HttpKeyTable.decode(Buffer.concat([bytes, Buffer.from([0])]), store)).toThrow(
      SnapshotInvalidError,
    );
    const format1 = Buffer.from(bytes);
    format1.writeUInt8(1, 0);
    expect(() => HttpKeyTable.decode(format1, store)).toThrow(/format 1 is not supported/);
    expect(() => HttpKeyTable.decode(Buffer.alloc(0), store)).toThrow(SnapshotInvalidError);
    // The records of another count: a section that does not belong to them.
    expect(() => HttpKeyTable.decode(bytes, new KeyedStore(undefined))).toThrow(
      SnapshotInvalidError,
    );
    const headless = new HttpKeyTable().encode();
    headless.writeUInt32LE(2, 1);
    expect(() => HttpKeyTable.decode(headless, store)).toThrow(/head and tail/);
  });

  it('keeps its invariants through any sequence of records, expiries and bounds (property)', () => {
    type Step =
      | { t: 'record'; key: number; advanceMs: number; max: number }
      | { t: 'expire'; advanceMs: number; retentionMs: number }
      | { t: 'bound'; max: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({
        t: fc.constant('record' as const),
        key: fc.integer({ min: 0, max: 20 }),
        advanceMs: fc.integer({ min: 0, max: 50 }),
        max: fc.integer({ min: 1, max: 6 }),
      }),
      fc.record({
        t: fc.constant('expire' as const),
        advanceMs: fc.integer({ min: 0, max: 100 }),
        retentionMs: fc.integer({ min: 1, max: 200 }),
      }),
      fc.record({ t: fc.constant('bound' as const), max: fc.integer({ min: 1, max: 6 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const store = new KeyedStore(undefined);
        const table = new HttpKeyTable(store);
        let op = 0;
        let now = 0;
        let max = Infinity;
        let early = 0;
        for (const s of steps) {
          if (s.t === 'record') {
            op++;
            now += s.advanceMs;
            const key = `k${s.key}`;
            if (table.get(key)) continue;
            const before = table.size;
            const forgotten = table.record(key, record(op, now), s.max);
            early += forgotten;
            expect(table.size).toBe(Math.min(before + 1, s.max));
            max = s.max;
          } else if (s.t === 'expire') {
            now += s.advanceMs;
            table.expire(START + BigInt(now) * MS, s.retentionMs);
            for (const [, kept] of table.entries()) {
              expect(kept.timestamp).toBeGreaterThanOrEqual(
                START + BigInt(now - s.retentionMs) * MS,
              );
            }
          } else {
            early += table.bound(s.max);
            max = Math.min(max, s.max);
          }
          table.assertInvariants(max === Infinity ? undefined : max);
          expect(table.earlyForgets).toBe(early);
          expect(HttpKeyTable.decode(table.encode(), store).encode()).toEqual(table.encode());
        }
      }),
    );
  });
});
