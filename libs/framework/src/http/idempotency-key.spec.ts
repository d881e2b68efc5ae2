import { readIdempotencyKey } from './idempotency-key';

describe('readIdempotencyKey', () => {
  it.each([
    [
      'an sf-string',
      '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    ],
    [
      'a bare key (Stripe style)',
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    ],
    ['an sf-string with escapes', '"a\\"b\\\\c"', 'a"b\\c'],
    ['an sf-string with spaces and a comma inside', '"order 7, retry"', 'order 7, retry'],
    ['a key with surrounding spaces', '  "abc"  ', 'abc'],
    ['a bare key with token characters', 'ord_1:a/b+c=', 'ord_1:a/b+c='],
  ])('reads %s', (_what, header, key) => {
    expect(readIdempotencyKey(header)).toEqual({ kind: 'key', key });
  });

  it('reads the quoted and the bare spelling as the same key', () => {
    expect(readIdempotencyKey('"abc"')).toEqual(readIdempotencyKey('abc'));
  });

  it('says missing when there is no header', () => {
    expect(readIdempotencyKey(undefined)).toEqual({ kind: 'missing' });
    expect(readIdempotencyKey([])).toEqual({ kind: 'missing' });
  });

  it('reads a single value given as a list', () => {
    expect(readIdempotencyKey(['"abc"'])).toEqual({ kind: 'key', key: 'abc' });
  });

  it.each([
    ['an empty header', ''],
    ['an empty sf-string', '""'],
    ['spaces only', '   '],
    ['an unclosed sf-string', '"abc'],
    ['text after the closing quote', '"abc"x'],
    ['two keys joined by HTTP', '"abc", "def"'],
    ['two bare keys joined by HTTP', 'abc,def'],
    ['a bare key with a space', 'abc def'],
    ['a bare key with a quote', 'ab"c'],
    ['a bad escape', '"a\\bc"'],
    ['a character outside ASCII', '"caf\u00e9"'],
    ['a control character', '"a\tb"'],
    ['a bare key outside ASCII', 'caf\u00e9'],
  ])('refuses %s', (_what, header) => {
    expect(readIdempotencyKey(header).kind).toBe('invalid');
  });

  it('refuses two headers', () => {
    expect(readIdempotencyKey(['abc', 'def']).kind).toBe('invalid');
  });

  it('accepts a key of the maximum length and refuses one character more', () => {
    expect(readIdempotencyKey('k'.repeat(255))).toEqual({ kind: 'key', key: 'k'.repeat(255) });
    const tooLong = readIdempotencyKey('k'.repeat(256));
    expect(tooLong).toEqual({
      kind: 'invalid',
      reason: 'the Idempotency-Key is 256 characters long; at most 255 are accepted',
    });
  });

  it('counts the unquoted key against the maximum, under the maximum given', () => {
    expect(readIdempotencyKey('"abcd"', 4)).toEqual({ kind: 'key', key: 'abcd' });
    expect(readIdempotencyKey('"abcde"', 4).kind).toBe('invalid');
  });
});
