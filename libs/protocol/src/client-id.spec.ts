import fc from 'fast-check';
import {
  ZERO_CLIENT_ID,
  clientIdFromBigInt,
  clientIdToBigInt,
  isClientId,
  randomClientId,
  readClientId,
  writeClientId,
} from './client-id';

describe('client ids', () => {
  it('are written as u128 little-endian and read back', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (value) => {
        const id = clientIdFromBigInt(value);
        const bytes = Buffer.alloc(20);
        writeClientId(bytes, 2, id);
        expect(bytes.readBigUInt64LE(2) | (bytes.readBigUInt64LE(10) << 64n)).toBe(value);
        expect(readClientId(bytes, 2)).toBe(id);
        expect(clientIdToBigInt(id)).toBe(value);
      }),
    );
  });

  it('are read from a plain Uint8Array as from a Buffer, each read its own string', () => {
    const bytes = new Uint8Array(40);
    writeClientId(bytes, 3, '0123456789abcdef0123456789abcdef');
    writeClientId(bytes, 20, 'fedcba9876543210fedcba9876543210');
    const first = readClientId(bytes, 3);
    const second = readClientId(bytes, 20);
    expect([first, second]).toEqual([
      '0123456789abcdef0123456789abcdef',
      'fedcba9876543210fedcba9876543210',
    ]);
    expect(readClientId(bytes.subarray(20), 0)).toBe(second);
  });

  it('sort as strings like the numbers they are', () => {
    expect(clientIdFromBigInt(0xffn) < clientIdFromBigInt(0x100n)).toBe(true);
  });

  it('validate their form', () => {
    expect(isClientId(ZERO_CLIENT_ID)).toBe(true);
    expect(isClientId(randomClientId())).toBe(true);
    expect(isClientId('A'.repeat(32))).toBe(false);
    expect(() => writeClientId(Buffer.alloc(16), 0, 'xyz')).toThrow(TypeError);
    expect(() => clientIdFromBigInt(1n << 128n)).toThrow(RangeError);
  });
});
