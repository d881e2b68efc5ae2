import { ONCE_AUTHENTICATOR, type OnceAuthenticator } from '@once/framework';
import { ADMIN_PASSWORD, type UsersNode, startUsersNode } from './__fixtures__/users-node.fixture';

describe('UsersModule (alone with OnceModule, through the apply path)', () => {
  let app: UsersNode;
  let auth: OnceAuthenticator;
  beforeAll(async () => {
    app = await startUsersNode();
    auth = app.module.get<OnceAuthenticator>(ONCE_AUTHENTICATOR);
  });
  afterAll(() => app.close());

  it('creates the admin user on a new data directory', async () => {
    expect(await auth.authenticate('admin', ADMIN_PASSWORD)).toBe(1);
    expect(await auth.authenticate('admin', 'wrong')).toBeUndefined();
    expect(await auth.authenticate('nobody', ADMIN_PASSWORD)).toBeUndefined();
  });

  it('lets only an administrator create users', async () => {
    const admin = await app.session(1);
    expect(await admin.command('users.create', { username: 'bob', password: 'bob-pass' })).toEqual({
      ok: true,
      result: { userId: 2 },
    });
    expect(await admin.command('users.create', { username: 'bob', password: 'x' })).toMatchObject({
      error: { code: 'USER_EXISTS' },
    });
    const bob = await app.session(2);
    expect(await bob.command('users.create', { username: 'eve', password: 'x' })).toMatchObject({
      error: { code: 'FORBIDDEN' },
    });
    expect(await auth.authenticate('bob', 'bob-pass')).toBe(2);
  });

  it('changes a password only with the current one; a wrong one is a committed refusal', async () => {
    const bob = await app.session(2);
    const wrong = await bob.commandOutcome('users.changePassword', {
      currentPassword: 'nope',
      newPassword: 'n1',
    });
    expect(wrong.cached).toBe(true);
    expect(JSON.parse(wrong.result!.toString())).toMatchObject({
      error: { code: 'INVALID_CREDENTIALS' },
    });
    expect(
      await bob.command('users.changePassword', { currentPassword: 'bob-pass', newPassword: 'n2' }),
    ).toEqual({
      ok: true,
      result: {},
    });
    expect(await auth.authenticate('bob', 'n2')).toBe(2);
    expect(await auth.authenticate('bob', 'bob-pass')).toBeUndefined();
  });

  it('never journals a plaintext password', async () => {
    const texts: string[] = [];
    for await (const batch of app.runtime.journal.readBatches(1)) {
      for (const entry of batch) texts.push(entry.body.toString('utf8'));
    }
    const journal = texts.join('\n');
    expect(journal).toContain('users.create');
    for (const secret of [ADMIN_PASSWORD, 'bob-pass', 'nope', 'n1', 'n2']) {
      expect(journal).not.toContain(`"${secret}"`);
    }
  });

  it('keeps users and hashes across a restart', async () => {
    app = await app.restart();
    auth = app.module.get<OnceAuthenticator>(ONCE_AUTHENTICATOR);
    expect(await auth.authenticate('bob', 'n2')).toBe(2);
  });
});
