import { VerifiedCredentials } from './verified-credentials';
import { parseBasic } from './basic-auth.guard';

describe('VerifiedCredentials', () => {
  const alice = { id: 2, name: 'alice' };

  it('believes a verified credential until its TTL, then asks again', () => {
    let now = 0;
    const verified = new VerifiedCredentials(1_000, 8, () => now);
    verified.remember('Basic YWxpY2U6cHc=', alice);
    expect(verified.get('Basic YWxpY2U6cHc=')).toEqual(alice);
    expect(verified.get('Basic YWxpY2U6b3RoZXI=')).toBeUndefined();
    now = 1_000;
    expect(verified.get('Basic YWxpY2U6cHc=')).toBeUndefined();
    expect(verified.size).toBe(0);
  });

  it('forgets the oldest credential beyond its bound', () => {
    const verified = new VerifiedCredentials(60_000, 2, () => 0);
    verified.remember('a', alice);
    verified.remember('b', alice);
    verified.remember('c', alice);
    expect(verified.get('a')).toBeUndefined();
    expect(verified.get('b')).toEqual(alice);
    expect(verified.get('c')).toEqual(alice);
  });
});

describe('parseBasic', () => {
  it('reads a name and a password that may hold colons', () => {
    const header = `Basic ${Buffer.from('alice:p:w').toString('base64')}`;
    expect(parseBasic(header)).toEqual({ name: 'alice', password: 'p:w' });
  });

  it.each(['Bearer abc', 'Basic', 'Basic !!!', `Basic ${Buffer.from(':pw').toString('base64')}`])(
    'refuses %j',
    (header) => {
      expect(parseBasic(header)).toBeUndefined();
    },
  );
});
