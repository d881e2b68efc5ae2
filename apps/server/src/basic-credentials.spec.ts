import { decodeBasicCredentials } from './basic-credentials';

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('decodeBasicCredentials', () => {
  it('splits at the first colon: the password may hold more, the name may be empty', () => {
    expect(decodeBasicCredentials(base64('alice:p:w'))).toEqual({ name: 'alice', password: 'p:w' });
    expect(decodeBasicCredentials(base64(':token'))).toEqual({ name: '', password: 'token' });
  });

  it.each([
    ['no colon', base64('alice')],
    ['not base64', '!!!'],
    ['empty', ''],
  ])('refuses %s', (_what, text) => {
    expect(decodeBasicCredentials(text)).toBeUndefined();
  });
});
