import { OP_KEY_BYTES, decodeOpKey, encodeOpKey, writeOpKey } from './op-key';

/**
 * Op keys are 8-byte big-endian integers, so LevelDB's bytewise order is op
 * order; the journal writes them after its sublevel's prefix in place.
 */
describe('op keys', () => {
  const ops = [0, 1, 255, 256, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER];

  it.each(ops)(
    'writes %p at any offset as the bytes encodeOpKey gives, which decode back',
    (op) => {
      const key = encodeOpKey(op);
      expect(key.byteLength).toBe(OP_KEY_BYTES);
      expect(key).toEqual(Buffer.from(BigInt(op).toString(16).padStart(16, '0'), 'hex'));
      const target = Buffer.alloc(3 + OP_KEY_BYTES + 2, 0xee);
      writeOpKey(op, target, 3);
      expect(target.subarray(3, 3 + OP_KEY_BYTES)).toEqual(key);
      expect([...target.subarray(0, 3), ...target.subarray(3 + OP_KEY_BYTES)]).toEqual([
        0xee, 0xee, 0xee, 0xee, 0xee,
      ]);
      expect(decodeOpKey(key)).toBe(op);
    },
  );

  it('orders keys bytewise as their ops', () => {
    const keys = ops.map(encodeOpKey);
    expect([...keys].sort(Buffer.compare)).toEqual(keys);
  });

  it.each([-1, 0.5, 2 ** 53, Number.NaN])('refuses %p, writing nothing', (op) => {
    const target = Buffer.alloc(OP_KEY_BYTES);
    expect(() => writeOpKey(op, target, 0)).toThrow(RangeError);
    expect(target).toEqual(Buffer.alloc(OP_KEY_BYTES));
  });
});
