import { journalQueryOf } from './journal-query';

const query = (text: string) => journalQueryOf(new URLSearchParams(text));

describe('journalQueryOf', () => {
  it('defaults to the last 100 entries, answered at once', () => {
    expect(query('')).toEqual({ after: undefined, limit: 100, waitMs: 0 });
  });

  it('reads after, limit and wait_ms', () => {
    expect(query('after=42&limit=7&wait_ms=1500')).toEqual({ after: 42, limit: 7, waitMs: 1500 });
  });

  it.each([
    ['after=-1', 'after must be an integer from 0'],
    ['after=1e3', 'after must be an integer from 0'],
    ['limit=0', 'limit must be an integer from 1 to 1000'],
    ['limit=1001', 'limit must be an integer from 1 to 1000'],
    ['wait_ms=30001', 'wait_ms must be an integer from 0 to 30000'],
    ['wait_ms=', 'wait_ms must be an integer'],
  ])('refuses %s, naming the parameter and its range', (text, message) => {
    expect(query(text)).toEqual(expect.stringContaining(message));
  });
});
