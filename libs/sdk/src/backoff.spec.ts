import { Backoff } from './backoff';
import { SdkInvariantError } from './errors/sdk-invariant.error';

const SETTINGS = { initialDelayMs: 50, delayMsMax: 2000, factor: 2, jitter: 0.2 };

/** A `random` that returns the given values in turn. */
function sequence(...values: number[]): () => number {
  let index = 0;
  return () => values[index++ % values.length];
}

describe('Backoff', () => {
  it('grows the base delay by the factor per attempt until the cap', () => {
    const backoff = new Backoff(SETTINGS);
    expect([1, 2, 3, 4, 5, 6, 7, 8, 100].map((attempt) => backoff.base(attempt))).toEqual([
      50, 100, 200, 400, 800, 1600, 2000, 2000, 2000,
    ]);
  });

  it('spreads each delay over ±jitter of its base, from the injected random', () => {
    expect(new Backoff(SETTINGS, () => 0).delay(3)).toBe(160); // 200 · 0.8
    expect(new Backoff(SETTINGS, () => 0.5).delay(3)).toBe(200);
    expect(new Backoff(SETTINGS, () => 0.999999).delay(3)).toBe(240); // 200 · 1.2
  });

  it('never exceeds delayMsMax, jitter included', () => {
    const backoff = new Backoff(SETTINGS, () => 0.999999);
    for (let attempt = 1; attempt <= 60; attempt++) {
      expect(backoff.delay(attempt)).toBeLessThanOrEqual(SETTINGS.delayMsMax);
    }
    expect(backoff.delay(7)).toBe(2000);
    expect(new Backoff(SETTINGS, () => 0).delay(7)).toBe(1600); // 2000 · 0.8
  });

  it('keeps every delay within [base·(1-jitter), min(max, base·(1+jitter))] for any random value', () => {
    const randoms = sequence(0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999);
    const backoff = new Backoff(SETTINGS, randoms);
    for (let attempt = 1; attempt <= 12; attempt++) {
      const base = backoff.base(attempt);
      for (let draw = 0; draw < 7; draw++) {
        const delay = backoff.delay(attempt);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
        expect(delay).toBeLessThanOrEqual(Math.ceil(Math.min(2000, base * 1.2)));
      }
    }
  });

  it('without jitter, is exactly the base', () => {
    const backoff = new Backoff({ ...SETTINGS, jitter: 0 }, () => 0.7);
    expect([1, 2, 3].map((attempt) => backoff.delay(attempt))).toEqual([50, 100, 200]);
  });

  it('does not overflow for huge attempt numbers', () => {
    const backoff = new Backoff(SETTINGS, () => 0.5);
    expect(backoff.base(10_000)).toBe(2000);
    expect(backoff.delay(10_000)).toBe(1800); // midway in [1600, 2000]
  });

  it('refuses settings and inputs outside its contract', () => {
    expect(() => new Backoff({ ...SETTINGS, factor: 0.5 })).toThrow(SdkInvariantError);
    expect(() => new Backoff({ ...SETTINGS, jitter: 1.5 })).toThrow(SdkInvariantError);
    expect(() => new Backoff({ ...SETTINGS, delayMsMax: 10 })).toThrow(SdkInvariantError);
    expect(() => new Backoff(SETTINGS).delay(0)).toThrow(SdkInvariantError);
    expect(() => new Backoff(SETTINGS, () => 1).delay(1)).toThrow(SdkInvariantError);
  });
});
