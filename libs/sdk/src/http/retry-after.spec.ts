import { retryAfterMs } from './retry-after';

describe('retryAfterMs', () => {
  it('reads delta-seconds', () => {
    expect(retryAfterMs('1')).toBe(1000);
    expect(retryAfterMs(' 0 ')).toBe(0);
  });

  it('reads an HTTP-date against now, a past date being 0', () => {
    const now = Date.parse('Sun, 06 Dec 2026 03:00:00 GMT');
    expect(retryAfterMs('Sun, 06 Dec 2026 03:00:02 GMT', now)).toBe(2000);
    expect(retryAfterMs('Sun, 06 Dec 2026 02:00:00 GMT', now)).toBe(0);
  });

  it('is undefined when absent or unreadable', () => {
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs('-1')).toBeUndefined();
  });
});
