import fc from 'fast-check';
import { RecordCache } from './record-cache';

describe('RecordCache', () => {
  it('never holds more than its bound, and keeps the entry it was just given', () => {
    const cache = new RecordCache<number>(4);
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) {
      cache.set(key, key.charCodeAt(0));
      expect(cache.get(key)).toBe(key.charCodeAt(0));
      expect(cache.size).toBeLessThanOrEqual(4);
    }
    const held = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].filter((key) => cache.get(key) !== undefined);
    expect(held).toHaveLength(4);
  });

  it('keeps a record in use however many others pass through', () => {
    const cache = new RecordCache<string>(4);
    cache.set('hot', 'h');
    for (let i = 0; i < 1000; i++) {
      expect(cache.get('hot')).toBe('h');
      cache.set(`cold${i}`, 'c');
    }
    expect(cache.get('hot')).toBe('h');
  });

  it('evicts the records not used again, before those used', () => {
    const cache = new RecordCache<number>(1000);
    for (let i = 0; i < 1000; i++) cache.set(`k${i}`, i);
    for (let i = 0; i < 1000; i += 2) cache.get(`k${i}`);
    for (let i = 0; i < 200; i++) cache.set(`new${i}`, i);
    for (let i = 0; i < 1000; i += 2) expect(cache.get(`k${i}`)).toBe(i);
    expect(cache.size).toBe(1000);
  });

  it('adds a checkpoint-sized map entry by entry: checkpoint after checkpoint, the records written stay while the bound allows', () => {
    const cache = new RecordCache<number>(100);
    for (let checkpoint = 0; checkpoint < 10; checkpoint++) {
      cache.adopt(new Map([0, 1, 2].map((i) => [`c${checkpoint}-${i}`, checkpoint])));
    }
    for (let checkpoint = 0; checkpoint < 10; checkpoint++) {
      expect(cache.get(`c${checkpoint}-0`)).toBe(checkpoint);
    }
    expect(cache.size).toBe(30);
  });

  it('empties itself for a large map rather than walk it, so no older value of a written record stays', () => {
    const cache = new RecordCache<number>(100_000);
    cache.set('w1', -1);
    cache.set('other', 0);
    cache.adopt(new Map(Array.from({ length: 20_000 }, (_, i) => [`w${i}`, i] as const)));
    expect(cache.get('w1')).toBeUndefined();
    expect(cache.get('other')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps every entry while under its bound, through the doublings of its table', () => {
    const cache = new RecordCache<number>(100_000);
    for (let i = 0; i < 60_000; i++) cache.set(`k${i}`, i);
    for (let i = 0; i < 60_000; i += 7) cache.delete(`k${i}`);
    const wrong: number[] = [];
    for (let i = 0; i < 60_000; i++) {
      if (cache.get(`k${i}`) !== (i % 7 === 0 ? undefined : i)) wrong.push(i);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(cache.size).toBe(60_000 - Math.ceil(60_000 / 7));
  });

  it('property: with hundreds of keys, growing and evicting, it answers the latest values and finds all it holds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 400 })), {
          minLength: 100,
          maxLength: 1500,
        }),
        (bound, steps) => {
          const cache = new RecordCache<number>(bound);
          const latest = new Map<number, number>();
          steps.forEach(([remove, n], version) => {
            if (remove) {
              cache.delete(`k${n}`);
              latest.delete(n);
            } else {
              cache.set(`k${n}`, version);
              latest.set(n, version);
            }
          });
          let found = 0;
          for (let n = 0; n <= 400; n++) {
            const got = cache.get(`k${n}`);
            if (got === undefined) continue;
            found++;
            expect(got).toBe(latest.get(n));
          }
          expect(found).toBe(cache.size);
          expect(cache.size).toBeLessThanOrEqual(bound);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('keeps nothing with a bound of 0, and forgets deleted and cleared entries', () => {
    const none = new RecordCache<number>(0);
    none.set('a', 1);
    none.adopt(new Map([['b', 2]]));
    expect(none.get('a')).toBeUndefined();
    expect(none.size).toBe(0);
    const cache = new RecordCache<number>(8);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe(2);
    cache.clear();
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps null values (records known to be absent) apart from missing ones', () => {
    const cache = new RecordCache<number | null>(8);
    cache.set('gone', null);
    expect(cache.get('gone')).toBeNull();
    expect(cache.get('never')).toBeUndefined();
  });

  it('property: whatever it answers is the latest value set for that key, it holds at most its bound, and it keeps what it was just given', () => {
    const step = fc.tuple(
      fc.constantFrom('set', 'get', 'delete', 'adopt'),
      fc.integer({ min: 0, max: 40 }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 16 }),
        fc.array(step, { maxLength: 300 }),
        (bound, steps) => {
          const cache = new RecordCache<number>(bound);
          const latest = new Map<string, number>();
          let version = 0;
          for (const [action, n] of steps) {
            const key = `k${n}`;
            if (action === 'set') {
              cache.set(key, ++version);
              latest.set(key, version);
              if (bound > 0) expect(cache.get(key)).toBe(version);
            } else if (action === 'adopt') {
              // A checkpoint's records: this key and the next one.
              const written = new Map([key, `k${n + 1}`].map((k) => [k, ++version] as const));
              cache.adopt(written);
              for (const [k, v] of written) latest.set(k, v);
            } else if (action === 'delete') {
              cache.delete(key);
              latest.delete(key);
              expect(cache.get(key)).toBeUndefined();
            } else {
              const got = cache.get(key);
              if (got !== undefined) expect(got).toBe(latest.get(key));
            }
            expect(cache.size).toBeLessThanOrEqual(bound);
          }
          // Every entry it holds is found (no key lost behind an emptied slot).
          let found = 0;
          for (let n = 0; n <= 41; n++) if (cache.get(`k${n}`) !== undefined) found++;
          expect(found).toBe(cache.size);
        },
      ),
      { numRuns: 300 },
    );
  });
});
