import { REDACTED, TOO_DEEP, boundedCopy, isCredentialKey, redactCredentials } from './redact';

describe('redactCredentials', () => {
  it('replaces passwords, secrets, salts, hashes and tokens at any depth, in arrays too', () => {
    const value = {
      username: 'ann',
      password: 'hunter2',
      profile: { newPassword: 'n3w', currentPassword: 'old', nickname: 'a' },
      keys: [{ apiSecret: 's', name: 'k' }],
      salt: 'abc',
      hash: 'def',
      resumeToken: '00ff',
    };
    const redacted = redactCredentials(value);
    expect(redacted).toEqual({
      username: 'ann',
      password: REDACTED,
      profile: { newPassword: REDACTED, currentPassword: REDACTED, nickname: 'a' },
      keys: [{ apiSecret: REDACTED, name: 'k' }],
      salt: REDACTED,
      hash: REDACTED,
      resumeToken: REDACTED,
    });
    expect(JSON.stringify(redacted)).not.toMatch(/hunter2|n3w|old"|abc|def|00ff/);
  });

  it('leaves the input untouched and scalars as they are', () => {
    const value = { password: 'p' };
    redactCredentials(value);
    expect(value.password).toBe('p');
    expect(redactCredentials('password')).toBe('password');
    expect(redactCredentials(null)).toBeNull();
    expect(redactCredentials([1, 'x'])).toEqual([1, 'x']);
  });

  it('names credential keys whatever their casing', () => {
    expect(
      ['PASSWORD', 'passwd', 'Pass', 'clientSecret', 'passwordHash'].every(isCredentialKey),
    ).toBe(true);
    expect(['username', 'amount', 'account', 'pattern'].some(isCredentialKey)).toBe(false);
  });
});

describe('boundedCopy', () => {
  it('copies JSON nested 100,000 deep without recursion, cut at the depth limit', () => {
    const deep = JSON.parse('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)) as unknown;
    let copy = boundedCopy(deep, () => false, 3) as Record<string, unknown>;
    expect(copy).toEqual({ a: { a: { a: TOO_DEEP } } });
    copy = boundedCopy(deep, () => false) as Record<string, unknown>;
    expect(JSON.stringify(copy)).toContain(TOO_DEEP);
  });

  it('keeps a "__proto__" key as data, never as the prototype of the copy', () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"pin":"1234"}') as object;
    const copy = boundedCopy(value, (key) => key === 'pin') as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"pin":"[redacted]"}');
  });

  it('names the secrets the issue listed, as a safety net', () => {
    expect(
      ['apiKey', 'authorization', 'privateKey', 'cardNumber', 'pin'].every(isCredentialKey),
    ).toBe(true);
    expect(['spinner', 'pinned', 'keyboard'].some(isCredentialKey)).toBe(false);
  });
});
