import fc from 'fast-check';
import { type CachedRecord, RecordCache } from './record-cache';

/** A record of `json`, with hash lanes derived from a number so each write is told apart. */
function record(json: string, version = json.length): CachedRecord {
  return { value: undefined, json, hashA: version | 0, hashB: ~version | 0 };
}

const MiB = 1024 * 1024;

describe('RecordCache', () => {
  it('never holds more than its bound of records, and keeps the entry it was just given', () => {
    const cache = new RecordCache(4, MiB);
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) {
      cache.set(key, record(`"${key}"`));
      expect(cache.get(key)).toEqual(record(`"${key}"`));
      expect(cache.size).toBeLessThanOrEqual(4);
    }
    const held = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].filter((key) => cache.get(key) !== undefined);
    expect(held).toHaveLength(4);
  });

  it('answers the JSON and the hash lanes it was given, keys and values outside ASCII included', () => {
    const cache = new RecordCache(100, MiB);
    const keys = ['ledger/accounts\u0000acct-1', 'счёт', '口座', 'emoji-\u{1F600}', ''];
    keys.forEach((key, i) =>
      cache.set(key, record(JSON.stringify({ key, n: i, s: 'é\u{1F4B0}' }), -i - 7)),
    );
    keys.forEach((key, i) => {
      expect(cache.get(key)).toEqual(
        record(JSON.stringify({ key, n: i, s: 'é\u{1F4B0}' }), -i - 7),
      );
    });
    // Same UTF-16 length, other key; same UTF-8 length, other key.
    expect(cache.get('ledger/accounts\u0000acct-2')).toBeUndefined();
    expect(cache.get('счёу')).toBeUndefined();
  });

  it('keeps a record in use however many others pass through', () => {
    const cache = new RecordCache(4, MiB);
    cache.set('hot', record('"h"'));
    for (let i = 0; i < 1000; i++) {
      expect(cache.get('hot')?.json).toBe('"h"');
      cache.set(`cold${i}`, record('"c"'));
    }
    expect(cache.get('hot')?.json).toBe('"h"');
  });

  it('keeps a record in use while its bytes bound turns the others over', () => {
    const cache = new RecordCache(1_000_000, 8192);
    cache.set('hot', record('"h"'));
    for (let i = 0; i < 5000; i++) {
      expect(cache.get('hot')?.json).toBe('"h"');
      cache.set(`cold${i}`, record(`"${'c'.repeat(i % 200)}"`));
      expect(cache.arenaBytes).toBeLessThanOrEqual(8192);
    }
    expect(cache.get('hot')?.json).toBe('"h"');
    expect(cache.get('cold4999')).toBeDefined();
    expect(cache.get('cold0')).toBeUndefined();
  });

  it('gives at most 8 records their second chance for one new one: when every record was used again, the ninth oldest goes', () => {
    const cache = new RecordCache(100, MiB);
    for (let i = 0; i < 100; i++) cache.set(`k${i}`, record(String(i)));
    for (let i = 0; i < 100; i++) cache.get(`k${i}`);
    cache.set('new', record('0'));
    const gone = Array.from({ length: 100 }, (_, i) => i).filter(
      (i) => cache.get(`k${i}`) === undefined,
    );
    expect(gone).toEqual([8]);
  });

  it('evicts the records not used again, before those used', () => {
    const cache = new RecordCache(1000, MiB);
    for (let i = 0; i < 1000; i++) cache.set(`k${i}`, record(String(i)));
    for (let i = 0; i < 1000; i += 2) cache.get(`k${i}`);
    for (let i = 0; i < 200; i++) cache.set(`new${i}`, record(String(i)));
    for (let i = 0; i < 1000; i += 2) expect(cache.get(`k${i}`)?.json).toBe(String(i));
    expect(cache.size).toBe(1000);
  });

  it('adds a checkpoint-sized map entry by entry: checkpoint after checkpoint, the records written stay while the bound allows', () => {
    const cache = new RecordCache(100, MiB);
    for (let checkpoint = 0; checkpoint < 10; checkpoint++) {
      cache.adopt(
        new Map([0, 1, 2].map((i) => [`c${checkpoint}-${i}`, record(String(checkpoint))])),
      );
    }
    for (let checkpoint = 0; checkpoint < 10; checkpoint++) {
      expect(cache.get(`c${checkpoint}-0`)?.json).toBe(String(checkpoint));
    }
    expect(cache.size).toBe(30);
  });

  it('empties itself for a large map rather than walk it, so no older value of a written record stays', () => {
    const cache = new RecordCache(100_000, 16 * MiB);
    cache.set('w1', record('-1'));
    cache.set('other', record('0'));
    cache.adopt(
      new Map(Array.from({ length: 20_000 }, (_, i) => [`w${i}`, record(String(i))] as const)),
    );
    expect(cache.get('w1')).toBeUndefined();
    expect(cache.get('other')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps every entry while under its bounds, through the doublings of its table', () => {
    // A bound above 2^20 records: the table starts at 2^21 slots and doubles.
    const cache = new RecordCache(3_000_000, 64 * MiB);
    for (let i = 0; i < 1_100_000; i++) cache.set(`k${i}`, record(String(i), i));
    for (let i = 0; i < 1_100_000; i += 7) cache.delete(`k${i}`);
    const wrong: number[] = [];
    for (let i = 0; i < 1_100_000; i++) {
      const got = cache.get(`k${i}`);
      if (i % 7 === 0 ? got !== undefined : got?.json !== String(i) || got.hashA !== i)
        wrong.push(i);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(cache.size).toBe(1_100_000 - Math.ceil(1_100_000 / 7));
    expect(cache.arenaBytes).toBe(64 * MiB);
  });

  it('rewrites a record at another size while its bytes bound evicts others, and the record itself, to make room', () => {
    // 4 KiB of arena, 40 keys rewritten in turn at sizes that keep changing:
    // making room often removes the oldest entries, the rewritten key among them.
    const cache = new RecordCache(1_000_000, 4096);
    const latest = new Map<string, string>();
    for (let i = 0; i < 4000; i++) {
      const key = `k${i % 40}`;
      const json = `"${'x'.repeat((i * 37) % 150)}"`;
      cache.set(key, record(json, i));
      latest.set(key, json);
      expect(cache.get(key)).toEqual(record(json, i));
      let found = 0;
      for (const [other, value] of latest) {
        const held = cache.get(other);
        if (held === undefined) continue;
        expect(held?.json).toBe(value); // no key here is set known-absent (null)
        found++;
      }
      expect(cache.size).toBe(found);
    }
  });

  it('writes a record as large as the one it replaces in its place, so the arena turns over only for new records', () => {
    // 120 entries of 32 bytes, known absent first, in an arena of 4,096.
    const cache = new RecordCache(1000, 4096);
    const key = (i: number) => `k${String(i).padStart(3, '0')}`;
    for (let i = 0; i < 120; i++) cache.set(key(i), null);
    for (let version = 0; version < 1000; version++)
      cache.set(key(0), record(String(version % 10), version));
    expect(cache.size).toBe(120);
    expect(cache.get(key(0))).toEqual(record('9', 999));
    for (let i = 1; i < 120; i++) expect(cache.get(key(i))).toBeNull();
  });

  it('does not keep a record larger than a sixteenth of its bytes bound, and forgets the older one under its key', () => {
    const cache = new RecordCache(100, 4096);
    cache.set('big', record('"small"'));
    cache.set('big', record(`"${'x'.repeat(300)}"`));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set('fits', record(`"${'x'.repeat(200)}"`));
    expect(cache.get('fits')?.json).toHaveLength(202);
  });

  it('keeps nothing with a bound of 0 records or under 4 KiB, and forgets deleted and cleared entries', () => {
    for (const none of [new RecordCache(0, MiB), new RecordCache(100, 4095)]) {
      none.set('a', record('1'));
      none.adopt(new Map([['b', record('2')]]));
      expect(none.get('a')).toBeUndefined();
      expect(none.size).toBe(0);
      expect(none.arenaBytes).toBe(0);
    }
    const cache = new RecordCache(8, MiB);
    cache.set('a', record('1'));
    cache.set('b', record('2'));
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')?.json).toBe('2');
    cache.clear();
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set('c', record('3'));
    expect(cache.get('c')?.json).toBe('3');
  });

  it('keeps records known to be absent (null) apart from missing ones', () => {
    const cache = new RecordCache(8, MiB);
    cache.set('gone', null);
    expect(cache.get('gone')).toBeNull();
    expect(cache.get('never')).toBeUndefined();
    cache.set('gone', record('1'));
    expect(cache.get('gone')?.json).toBe('1');
  });

  it('property: whatever it answers is the latest record set for that key, it holds at most its bounds, and it keeps what it was just given', () => {
    const key = fc.oneof(
      fc.integer({ min: 0, max: 40 }).map((n) => `k${n}`),
      fc.constantFrom('ключ', '鍵', 'k\u{1F511}', 'ledger/accounts\u0000acct-7'),
    );
    const json = fc.oneof(
      fc.integer().map(String),
      fc.string({ maxLength: 400, unit: 'grapheme' }).map((s) => JSON.stringify(s)),
      fc.constant('null'),
    );
    const step = fc.oneof(
      fc.tuple(fc.constant('set' as const), key, json),
      fc.tuple(fc.constant('absent' as const), key, fc.constant('')),
      fc.tuple(fc.constant('get' as const), key, fc.constant('')),
      fc.tuple(fc.constant('delete' as const), key, fc.constant('')),
      fc.tuple(fc.constant('adopt' as const), key, json),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 24 }),
        fc.constantFrom(4096, 6000, 8192, 65_536),
        fc.array(step, { maxLength: 400 }),
        (entriesMax, bytesMax, steps) => {
          const cache = new RecordCache(entriesMax, bytesMax);
          const latest = new Map<string, CachedRecord | null>();
          let version = 0;
          const fits = (k: string, r: CachedRecord | null) =>
            Math.ceil(
              (24 + Buffer.byteLength(k) + (r === null ? 0 : Buffer.byteLength(r.json))) / 8,
            ) *
              8 <=
            Math.floor((bytesMax - (bytesMax % 8)) / 16);
          for (const [action, k, j] of steps) {
            if (action === 'set' || action === 'absent') {
              const r = action === 'set' ? record(j, ++version) : null;
              cache.set(k, r);
              latest.set(k, r);
              if (entriesMax > 0 && fits(k, r)) expect(cache.get(k)).toEqual(r);
            } else if (action === 'adopt') {
              // A checkpoint's records: this key, written, and `k0`, deleted.
              const written = new Map<string, CachedRecord | null>([
                [k, record(j, ++version)],
                ['k0', null],
              ]);
              cache.adopt(written);
              for (const [wk, wr] of written) latest.set(wk, wr);
            } else if (action === 'delete') {
              cache.delete(k);
              latest.delete(k);
              expect(cache.get(k)).toBeUndefined();
            } else {
              const got = cache.get(k);
              if (got !== undefined) expect(got).toEqual(latest.get(k));
            }
            expect(cache.size).toBeLessThanOrEqual(entriesMax);
            expect(cache.arenaBytes).toBeLessThanOrEqual(bytesMax);
          }
          // Every entry it holds is found (no key lost behind an emptied slot), with its latest record.
          let found = 0;
          for (const k of new Set([...latest.keys(), ...steps.map(([, sk]) => sk)])) {
            const got = cache.get(k);
            if (got === undefined) continue;
            found++;
            expect(got).toEqual(latest.get(k));
          }
          expect(found).toBe(cache.size);
        },
      ),
      { numRuns: 400 },
    );
  });
});
