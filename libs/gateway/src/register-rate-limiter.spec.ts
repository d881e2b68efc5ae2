import { RegisterRateLimiter } from './register-rate-limiter';

describe('RegisterRateLimiter', () => {
  it('blocks an address after its failures of the last minute reach the limit, and forgives after a minute', () => {
    let now = 1_000_000;
    const limiter = new RegisterRateLimiter(3, 10, () => now);
    for (let i = 0; i < 3; i++) {
      expect(limiter.blocked('10.0.0.1')).toBe(false);
      limiter.recordFailure('10.0.0.1');
      now += 1_000;
    }
    expect(limiter.blocked('10.0.0.1')).toBe(true);
    expect(limiter.blocked('10.0.0.2')).toBe(false);
    now += 58_001; // the first failure leaves the window
    expect(limiter.blocked('10.0.0.1')).toBe(false);
  });

  it('counts the failures past the free ones', () => {
    const limiter = new RegisterRateLimiter(2, 10, () => 0);
    expect(limiter.excess('k')).toBe(-2);
    limiter.recordFailure('k');
    limiter.recordFailure('k');
    limiter.recordFailure('k');
    expect(limiter.excess('k')).toBe(1);
  });

  it('tracks a bounded number of addresses', () => {
    const limiter = new RegisterRateLimiter(1, 2, () => 0);
    limiter.recordFailure('a');
    limiter.recordFailure('b');
    limiter.recordFailure('c');
    expect(limiter.blocked('a')).toBe(false);
    expect(limiter.blocked('b')).toBe(true);
    expect(limiter.blocked('c')).toBe(true);
  });
});
