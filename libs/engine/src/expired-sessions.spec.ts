import { ExpiredSessions } from './expired-sessions';

describe('ExpiredSessions', () => {
  it('keeps the newest expiries up to the limit, oldest first in its snapshot', () => {
    const expired = new ExpiredSessions();
    expired.remember('a', 1, 2);
    expired.remember('b', 2, 2);
    expired.remember('a', 3, 2);
    expect(expired.toSnapshot()).toEqual([
      ['b', 2],
      ['a', 3],
    ]);
    expired.remember('c', 4, 2);
    expect(expired.has('b')).toBe(false);
    expect(expired.toSnapshot()).toEqual([
      ['a', 3],
      ['c', 4],
    ]);
  });

  it('forgets a client that registered again, and restores from its own snapshot', () => {
    const expired = new ExpiredSessions([
      ['a', 1],
      ['b', 2],
    ]);
    expired.forget('a');
    expect(expired.has('a')).toBe(false);
    expect(new ExpiredSessions(expired.toSnapshot()).toSnapshot()).toEqual([['b', 2]]);
  });
});
