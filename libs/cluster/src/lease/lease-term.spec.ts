import { nextTerm } from './lease-term';

describe('nextTerm', () => {
  it('is 1 for the first leadership of a cluster', () => {
    expect(nextTerm(0)).toBe(1);
  });

  it('is one more than the highest term seen, or than the floor when that is higher', () => {
    expect(nextTerm(4)).toBe(5);
    expect(nextTerm(4, 2)).toBe(5);
    expect(nextTerm(0, 9)).toBe(10);
    expect(nextTerm(9, 9)).toBe(10);
  });

  it('refuses what is no term, and the last safe integer', () => {
    expect(() => nextTerm(-1)).toThrow(/highest term seen must be an integer of at least 0/);
    expect(() => nextTerm(1, 0.5)).toThrow(/term floor must be/);
    expect(() => nextTerm(Number.MAX_SAFE_INTEGER)).toThrow(/exhausted/);
  });
});
