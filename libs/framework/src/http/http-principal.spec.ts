import { principalOfRequestUser } from './http-principal';

describe('principalOfRequestUser', () => {
  it.each([
    ['no user', {}, { name: 'anonymous', userId: 0 }],
    ['a null user', { user: null }, { name: 'anonymous', userId: 0 }],
    ['a user with a numeric id', { user: { id: 7 } }, { name: 'user 7', userId: 7 }],
    ['a user with a numeric string id', { user: { id: '42' } }, { name: 'user 42', userId: 42 }],
    ['a JWT subject', { user: { sub: 'auth0|abc' } }, { name: 'user auth0|abc', userId: 0 }],
    ['a userId field', { user: { userId: 3 } }, { name: 'user 3', userId: 3 }],
    ['a bare string user', { user: 'alice' }, { name: 'user alice', userId: 0 }],
    [
      'an id beyond the journal field',
      { user: { id: 2 ** 32 } },
      { name: 'user 4294967296', userId: 0 },
    ],
    ['a user without an id', { user: { name: 'x' } }, { name: 'anonymous', userId: 0 }],
  ])('reads %s', (_what, request, principal) => {
    expect(principalOfRequestUser(request)).toEqual(principal);
  });

  it('prefers id over sub over userId', () => {
    expect(principalOfRequestUser({ user: { userId: 3, sub: 's', id: 9 } }).name).toBe('user 9');
  });
});
