import fc from 'fast-check';
import {
  ZERO_CLIENT_ID,
  clientIdFromBigInt,
  clientIdToBigInt,
  isClientId,
  randomClientId,
  readClientId,
  writeClientId,
  writeValidClientId,
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

  describe('against the regular expression and the native hex decoder they replace', () => {
    const pattern = /^[0-9a-f]{32}$/;
    /** The former writer: Buffer's hex decoder, then the 16 bytes reversed. */
    function nativeWrite(id: string): Buffer | 'throws' {
      const out = Buffer.alloc(16);
      // A client id is exactly 32 digits; Buffer writes the first 16 bytes of a longer string.
      if (id.length !== 32 || out.write(id, 0, 16, 'hex') !== 16) return 'throws';
      return out.reverse();
    }
    const alphabet = '0123456789abcdefABCDEFgxz -\u00e9\u0660';
    const candidates = fc.oneof(
      fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map(clientIdFromBigInt),
      fc
        .bigInt({ min: 0n, max: (1n << 128n) - 1n })
        .map((v) => clientIdFromBigInt(v).toUpperCase()),
      fc.string({ unit: fc.constantFrom(...alphabet), minLength: 30, maxLength: 34 }),
      fc.string({ unit: fc.constantFrom(...alphabet), minLength: 32, maxLength: 32 }),
      fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).chain((v) =>
        fc.tuple(fc.nat(31), fc.constantFrom(...alphabet)).map(([at, ch]) => {
          const id = clientIdFromBigInt(v);
          return id.slice(0, at) + ch + id.slice(at + 1);
        }),
      ),
    );

    it('given any 16 bytes at any offset, then readClientId gives the digits the former concatenation did', () => {
      const byteHex = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 16, maxLength: 40 }), fc.nat(24), (bytes, at) => {
          const offset = at % (bytes.length - 15);
          let expected = '';
          for (let i = offset + 15; i >= offset; i--) expected += byteHex[bytes[i]];
          expect(readClientId(bytes, offset)).toBe(expected);
          expect(readClientId(Buffer.from(bytes), offset)).toBe(expected);
        }),
        { numRuns: 2000 },
      );
    });

    it('given any string, then isClientId agrees with /^[0-9a-f]{32}$/', () => {
      fc.assert(
        fc.property(candidates, (id) => {
          expect(isClientId(id)).toBe(pattern.test(id));
        }),
        { numRuns: 2000 },
      );
      expect(isClientId(undefined)).toBe(false);
      expect(isClientId(42)).toBe(false);
    });

    it('given any string, then writeClientId writes the same bytes or throws where Buffer hex decoding fails', () => {
      const longer = '0123456789abcdef0123456789abcdef0';
      fc.assert(
        fc.property(candidates, (id) => {
          const expected = nativeWrite(id);
          const out = Buffer.alloc(20, 0x55);
          if (expected === 'throws') {
            expect(() => writeClientId(out, 2, id)).toThrow(TypeError);
          } else {
            writeClientId(out, 2, id);
            expect(out.subarray(2, 18)).toEqual(expected);
            expect([out[0], out[1], out[18], out[19]]).toEqual([0x55, 0x55, 0x55, 0x55]);
          }
        }),
        { numRuns: 2000, examples: [[longer], [`${longer}z`]] },
      );
    });

    it('given any string, then writeValidClientId writes exactly the ids isClientId accepts', () => {
      fc.assert(
        fc.property(candidates, (id) => {
          const out = Buffer.alloc(16);
          expect(writeValidClientId(out, 0, id)).toBe(pattern.test(id));
          if (pattern.test(id)) expect(out).toEqual(nativeWrite(id));
        }),
        { numRuns: 2000 },
      );
      expect(writeValidClientId(Buffer.alloc(16), 1, ZERO_CLIENT_ID)).toBe(false);
      expect(() => writeClientId(Buffer.alloc(16), 1, ZERO_CLIENT_ID)).toThrow(TypeError);
    });
  });
});
