import { join } from 'node:path';
import { CommandRefusedError, OnceClient, UnauthenticatedError } from '@once/sdk';
import { ServiceProcess } from '@once/testing';
import { adminGenesis } from '@once/users';

const ADMIN_PASSWORD = 'admin-pw';

/**
 * A service the harness assembles from a team's module and @once/users: the
 * users module is the authenticator and `genesis` creates its admin, as a
 * team's own main would with OnceModule.forRoot({ genesis }).
 */
describe('given a service made of a team module and UsersModule, started with an admin genesis', () => {
  let service: ServiceProcess;
  const clients: OnceClient[] = [];
  beforeAll(async () => {
    service = await ServiceProcess.start({
      modules: [
        { path: join(__dirname, '../../libs/users/src/users.module.ts'), export: 'UsersModule' },
        {
          path: join(__dirname, '../fixtures/minimal-main/tally.module.ts'),
          export: 'TallyModule',
        },
      ],
      genesis: adminGenesis(ADMIN_PASSWORD),
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close({ force: true })));
    await service.cleanup();
  });

  async function connect(username: string, password: string): Promise<OnceClient> {
    const client = await OnceClient.connect({ port: service.port, username, password });
    clients.push(client);
    return client;
  }

  it('when the admin creates a user, then that user registers and its commands survive a crash', async () => {
    // Given the admin the genesis created
    const admin = await connect('admin', ADMIN_PASSWORD);

    // When it creates a user, who counts once
    await admin.command('users.create', { username: 'carol', password: 'carol-pw' });
    const carol = await connect('carol', 'carol-pw');
    await expect(carol.command('tally.add', { name: 'visits' })).resolves.toEqual({ count: 1 });

    // Then the user, the count and the refusals survive a SIGKILL
    await service.crash();
    await service.restart();
    const again = await connect('carol', 'carol-pw');
    await expect(again.query('tally.get', { name: 'visits' })).resolves.toEqual({ count: 1 });
    await expect(connect('carol', 'wrong')).rejects.toBeInstanceOf(UnauthenticatedError);
    await expect(
      again.command('users.create', { username: 'dave', password: 'x' }),
    ).rejects.toBeInstanceOf(CommandRefusedError);
  });
});
