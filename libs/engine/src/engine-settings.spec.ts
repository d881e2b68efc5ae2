import {
  GENESIS_SETTINGS,
  InvalidSettingsError,
  decodeSettings,
  encodeSettings,
  sameSettings,
  validateSettings,
} from './engine-settings';

const OLD = { clientsMax: 10, ring: 4, sessionTtlMs: 0 };

describe('engine settings', () => {
  it('start with the settings table defaults, the HTTP key limits included', () => {
    expect(GENESIS_SETTINGS).toEqual({
      clientsMax: 8192,
      ring: 8,
      sessionTtlMs: 0,
      httpKeyRetentionMs: 86_400_000,
      httpKeysMax: 1_000_000,
    });
  });

  it('read settings written before the HTTP key limits as their defaults', () => {
    expect(validateSettings(OLD)).toEqual({
      ...OLD,
      httpKeyRetentionMs: 86_400_000,
      httpKeysMax: 1_000_000,
    });
    expect(decodeSettings(Buffer.from(JSON.stringify(OLD)))).toEqual(validateSettings(OLD));
  });

  it('round-trip through a BOOT body, in one key order', () => {
    const settings = validateSettings({ ...OLD, httpKeyRetentionMs: 1000, httpKeysMax: 3 });
    expect(encodeSettings(settings).toString()).toBe(
      '{"clientsMax":10,"ring":4,"sessionTtlMs":0,"httpKeyRetentionMs":1000,"httpKeysMax":3}',
    );
    expect(decodeSettings(encodeSettings(settings))).toEqual(settings);
  });

  it.each([
    [{ httpKeyRetentionMs: 0 }, /httpKeyRetentionMs/],
    [{ httpKeyRetentionMs: 1.5 }, /httpKeyRetentionMs/],
    [{ httpKeysMax: 0 }, /httpKeysMax/],
    [{ httpKeysMax: 100_000_001 }, /httpKeysMax/],
  ])('refuse %j', (change, message) => {
    expect(() => validateSettings({ ...OLD, ...change })).toThrow(InvalidSettingsError);
    expect(() => validateSettings({ ...OLD, ...change })).toThrow(message);
    expect(decodeSettings(Buffer.from(JSON.stringify({ ...OLD, ...change })))).toBeUndefined();
  });

  it('read nothing from a BOOT body that is not an object', () => {
    expect(decodeSettings(Buffer.from('null'))).toBeUndefined();
    expect(decodeSettings(Buffer.from('{'))).toBeUndefined();
  });

  it('differ when an HTTP key limit differs', () => {
    const settings = validateSettings(OLD);
    expect(sameSettings(settings, validateSettings(OLD))).toBe(true);
    expect(sameSettings(settings, { ...settings, httpKeysMax: 5 })).toBe(false);
    expect(sameSettings(settings, { ...settings, httpKeyRetentionMs: 5 })).toBe(false);
  });
});
