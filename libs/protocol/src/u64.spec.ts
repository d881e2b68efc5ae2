import fc from 'fast-check';
import { writeBigU64 } from './u64';

describe('writeBigU64', () => {
  it('given any u64 bigint and offset, then it writes the bytes of Buffer#writeBigUInt64LE', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.nat(8), (value, offset) => {
        const expected = Buffer.alloc(16, 0x33);
        expected.writeBigUInt64LE(value, offset);
        const actual = Buffer.alloc(16, 0x33);
        writeBigU64(actual, offset, value);
        expect(actual).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  /** The error's name: Node's own RangeError is another realm's class than the test's. */
  function thrownName(write: () => void): string | undefined {
    try {
      write();
    } catch (error) {
      return (error as Error).name;
    }
    return undefined;
  }

  it('given a value outside u64 or no room, then it throws a RangeError as Buffer does', () => {
    for (const value of [-1n, 1n << 64n, (1n << 64n) + 5n]) {
      expect(thrownName(() => Buffer.alloc(8).writeBigUInt64LE(value, 0))).toBe('RangeError');
      expect(() => writeBigU64(Buffer.alloc(8), 0, value)).toThrow(RangeError);
    }
    expect(thrownName(() => Buffer.alloc(8).writeBigUInt64LE(1n, 1))).toBe('RangeError');
    expect(() => writeBigU64(Buffer.alloc(8), 1, 1n)).toThrow(RangeError);
  });
});
