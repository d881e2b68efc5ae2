import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { clientIdFromBigInt } from './client-id';
import { ProtocolError } from './protocol-error';
import {
  RESUME_TOKEN_SIZE,
  mintResumeToken,
  resumeTokenFromHex,
  resumeTokenToHex,
  verifyResumeToken,
} from './resume-token';

const SECRET = Buffer.from(
  '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  'hex',
);
const CLIENT = '0123456789abcdeffedcba9876543210';

describe('resume tokens', () => {
  const token = mintResumeToken(SECRET, CLIENT, 42);

  it('are 16 bytes and verify for the (client, session) they were minted for', () => {
    expect(token.length).toBe(RESUME_TOKEN_SIZE);
    expect(verifyResumeToken(SECRET, CLIENT, 42, token)).toBe(true);
  });

  it('are the first 16 bytes of HMAC-SHA256(secret, client LE ‖ session LE)', () => {
    // client 0x01 and session 0x02, laid out little-endian by hand.
    const message = Buffer.alloc(24);
    message[0] = 0x01;
    message[16] = 0x02;
    const expected = createHmac('sha256', SECRET).update(message).digest().subarray(0, 16);
    expect(mintResumeToken(SECRET, clientIdFromBigInt(1n), 2)).toEqual(expected);
  });

  it('do not verify for another session, client or secret', () => {
    expect(verifyResumeToken(SECRET, CLIENT, 43, token)).toBe(false);
    expect(verifyResumeToken(SECRET, CLIENT.replace('0', '1'), 42, token)).toBe(false);
    expect(verifyResumeToken(randomBytes(32), CLIENT, 42, token)).toBe(false);
  });

  it('do not verify with any single bit flipped', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 * RESUME_TOKEN_SIZE - 1 }), (bit) => {
        const forged = Buffer.from(token);
        forged[bit >> 3] ^= 1 << (bit & 7);
        expect(verifyResumeToken(SECRET, CLIENT, 42, forged)).toBe(false);
      }),
    );
  });

  it('refuse without throwing: wrong length, all zeros, unrepresentable session, bad client', () => {
    expect(verifyResumeToken(SECRET, CLIENT, 42, token.subarray(0, 15))).toBe(false);
    expect(verifyResumeToken(SECRET, CLIENT, 42, Buffer.concat([token, Buffer.alloc(1)]))).toBe(
      false,
    );
    expect(verifyResumeToken(SECRET, CLIENT, 42, Buffer.alloc(16))).toBe(false);
    expect(verifyResumeToken(SECRET, CLIENT, 2 ** 64, token)).toBe(false);
    expect(verifyResumeToken(SECRET, 'not a client', 42, token)).toBe(false);
  });

  it('round-trip any (client, session) and differ between sessions', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: (1n << 128n) - 1n }).map(clientIdFromBigInt),
        fc.maxSafeNat(),
        (client, session) => {
          const minted = mintResumeToken(SECRET, client, session);
          expect(verifyResumeToken(SECRET, client, session, minted)).toBe(true);
          const next = session === Number.MAX_SAFE_INTEGER ? session - 1 : session + 1;
          expect(verifyResumeToken(SECRET, client, next, minted)).toBe(false);
        },
      ),
    );
  });

  it('need a 32-byte node secret and a representable (client, session) to be minted', () => {
    expect(() => mintResumeToken(SECRET.subarray(1), CLIENT, 1)).toThrow(
      expect.objectContaining({ code: 'INVALID_NODE_SECRET' }),
    );
    expect(() => verifyResumeToken(Buffer.alloc(0), CLIENT, 1, token)).toThrow(ProtocolError);
    expect(() => mintResumeToken(SECRET, 'ABC', 1)).toThrow(
      expect.objectContaining({ code: 'FIELD_OUT_OF_RANGE' }),
    );
    expect(() => mintResumeToken(SECRET, CLIENT, -1)).toThrow(
      expect.objectContaining({ code: 'FIELD_OUT_OF_RANGE' }),
    );
  });

  it('convert to and from 32 hex digits in wire order', () => {
    const hex = resumeTokenToHex(token);
    expect(hex).toBe(token.toString('hex'));
    expect(resumeTokenFromHex(hex)).toEqual(token);
    expect(resumeTokenFromHex(hex.toUpperCase())).toEqual(token);
    expect(() => resumeTokenFromHex(hex.slice(2))).toThrow(
      expect.objectContaining({ code: 'INVALID_RESUME_TOKEN' }),
    );
    expect(() => resumeTokenFromHex(hex.slice(1) + 'g')).toThrow(ProtocolError);
    expect(() => resumeTokenToHex(token.subarray(1))).toThrow(ProtocolError);
  });
});
