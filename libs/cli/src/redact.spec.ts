import { REDACTED, isCredentialKey, redactCredentials } from './redact';

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
