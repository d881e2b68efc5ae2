import fc from 'fast-check';
import { RecordCache } from './record-cache';

describe('RecordCache', () => {
  it('keeps what was used within the last half-bound insertions, and never more than its bound', () => {
    const cache = new RecordCache<number>(4);
    for (const key of ['a', 'b', 'c', 'd', 'e']) cache.set(key, key.charCodeAt(0));
    expect(cache.size).toBeLessThanOrEqual(4);
    expect(cache.get('e')).toBe(101);
    expect(cache.get('d')).toBe(100);
    expect(cache.get('a')).toBeUndefined();
  });

  it('moves an entry read from the old generation back to the young one, so a record in use stays', () => {
    const cache = new RecordCache<string>(4);
    cache.set('hot', 'h');
    cache.set('x', 'x'); // young full: it becomes the old generation
    for (let i = 0; i < 10; i++) {
      expect(cache.get('hot')).toBe('h');
      cache.set(`cold${i}`, 'c');
    }
    expect(cache.get('hot')).toBe('h');
  });

  it('adopts a map of entries just written, and ages it out like any other', () => {
    const cache = new RecordCache<number>(8);
    cache.set('before', 0);
    cache.adopt(
      new Map([
        ['w1', 1],
        ['w2', 2],
        ['w3', 3],
      ]),
    );
    expect(cache.get('w2')).toBe(2);
    expect(cache.get('before')).toBe(0);
    cache.set('n1', 4);
    cache.set('n2', 5);
    cache.set('n3', 6);
    expect(cache.get('w1')).toBeUndefined();
    expect(new RecordCache<number>(0).get('x')).toBeUndefined();
  });

  it('adds small maps entry by entry: checkpoint after checkpoint, the records written stay while the bound allows', () => {
    const cache = new RecordCache<number>(100);
    for (let checkpoint = 0; checkpoint < 10; checkpoint++) {
      cache.adopt(new Map([0, 1, 2].map((i) => [`c${checkpoint}-${i}`, checkpoint])));
    }
    for (let checkpoint = 0; checkpoint < 10; checkpoint++) {
      expect(cache.get(`c${checkpoint}-0`)).toBe(checkpoint);
    }
    expect(cache.size).toBeLessThanOrEqual(100);
  });

  it('takes a large map whole as its young generation, without a walk', () => {
    const cache = new RecordCache<number>(1000);
    cache.set('before', 0);
    const large = new Map(Array.from({ length: 20_000 }, (_, i) => [`w${i}`, i] as const));
    cache.adopt(large);
    expect(cache.get('w19999')).toBe(19_999);
    expect(cache.get('before')).toBe(0);
    // The large map is the young generation itself: the next insertion ages it.
    expect(cache.size).toBe(20_000 + 1);
  });

  it('keeps nothing with a bound of 0, and forgets deleted and cleared entries', () => {
    const none = new RecordCache<number>(0);
    none.set('a', 1);
    expect(none.get('a')).toBeUndefined();
    const cache = new RecordCache<number>(8);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    cache.clear();
    expect(cache.get('b')).toBeUndefined();
  });

  it('property: whatever it answers is the latest value set for that key, and it holds at most its bound', () => {
    const step = fc.tuple(
      fc.constantFrom('set', 'get', 'delete', 'adopt'),
      fc.integer({ min: 0, max: 12 }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }),
        fc.array(step, { maxLength: 200 }),
        (bound, steps) => {
          const cache = new RecordCache<number>(bound);
          const latest = new Map<string, number>();
          let version = 0;
          for (const [action, n] of steps) {
            const key = `k${n}`;
            if (action === 'set') {
              cache.set(key, ++version);
              latest.set(key, version);
            } else if (action === 'adopt') {
              // A checkpoint's records: this key and the next one.
              const written = new Map([key, `k${n + 1}`].map((k) => [k, ++version] as const));
              cache.adopt(written);
              for (const [k, v] of written) latest.set(k, v);
            } else if (action === 'delete') {
              cache.delete(key);
              latest.delete(key);
            } else {
              const got = cache.get(key);
              if (got !== undefined) expect(got).toBe(latest.get(key));
            }
            expect(cache.size).toBeLessThanOrEqual(Math.max(bound, 1) + 1);
          }
        },
      ),
    );
  });
});
