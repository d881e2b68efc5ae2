import {
  LeaderNotTrustedError,
  type NodeAddress,
  OnceClient,
  type OnceClientOptions,
} from '@once/sdk';
import { OnceCluster } from '@once/testing';
import { ADMIN_PASSWORD, accountName } from '../support/wire';

jest.setTimeout(180_000);

/**
 * A client given a follower of a real three-node cluster: it follows the
 * follower's leader hint only to an address it was configured with (plain
 * TCP here), and otherwise fails at once with an error naming the follower,
 * its role and the leader, rather than retrying a node that will never serve.
 */
describe('given one NATS server and three once nodes, over plain TCP', () => {
  let cluster: OnceCluster;
  let leader: number;
  let follower: number;
  const clients: OnceClient[] = [];

  beforeAll(async () => {
    cluster = await OnceCluster.start({
      natsServers: 1,
      nodes: 3,
      env: { ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD },
    });
    leader = await cluster.leader();
    follower = (leader + 1) % 3;
    // Both followers know the leader (PING says so) before a client asks them.
    for (let index = 0; index < 3; index += 1) {
      await expect(cluster.ping(index)).resolves.toMatchObject({ leader: addressOf(leader) });
    }
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close({ force: true });
  });
  afterAll(() => cluster?.cleanup());

  const addressOf = (index: number) => `127.0.0.1:${cluster.nodes[index].port}`;
  const nodeAt = (index: number): NodeAddress => ({
    host: '127.0.0.1',
    port: cluster.nodes[index].port,
  });

  /** What `connect()` rejected with; a client that connected is closed and the test fails. */
  async function connectFailure(options: Partial<OnceClientOptions>): Promise<unknown> {
    const outcome = await OnceClient.connect({
      username: 'admin',
      password: ADMIN_PASSWORD,
      logger: false,
      ...options,
    }).catch((error: unknown) => error);
    if (outcome instanceof OnceClient) {
      clients.push(outcome);
      throw new Error(`connect() bound a session on ${JSON.stringify(outcome.node)}`);
    }
    return outcome;
  }

  it('when a client is given only the follower’s host and port, then connect() fails at once with LEADER_NOT_TRUSTED naming the follower, its role and the leader', async () => {
    const failure = await connectFailure({ port: cluster.nodes[follower].port });

    expect(failure).toBeInstanceOf(LeaderNotTrustedError);
    expect(failure).toMatchObject({
      code: 'LEADER_NOT_TRUSTED',
      node: addressOf(follower),
      role: 'follower',
      leader: addressOf(leader),
      status: 'NOT_READY',
    });
    const message = (failure as Error).message;
    expect(message).toContain(`${addressOf(follower)} is a follower (NOT_READY)`);
    expect(message).toContain(`it names ${addressOf(leader)} as the leader`);
    expect(message).toContain(`Add ${addressOf(leader)} to the client's nodes`);
    expect(message).not.toContain(ADMIN_PASSWORD);
  });

  it('when it is also given reconnect.attemptsMax, then it fails the same way, the answer kept (not a bare CONNECT_FAILED)', async () => {
    const failure = await connectFailure({
      port: cluster.nodes[follower].port,
      reconnect: { attemptsMax: 3 },
    });

    expect(failure).toBeInstanceOf(LeaderNotTrustedError);
    expect(failure).toMatchObject({ node: addressOf(follower), leader: addressOf(leader) });
  });

  it('when a client is given the follower alone as its node list (learning from PING on), then the leader it learns over plain TCP is not trusted either', async () => {
    const failure = await connectFailure({ nodes: [nodeAt(follower)] });

    expect(failure).toBeInstanceOf(LeaderNotTrustedError);
    expect(failure).toMatchObject({ node: addressOf(follower), leader: addressOf(leader) });
  });

  it('when a client is given every node, the follower first, then it follows the hint to the leader and its commands commit there', async () => {
    const others = [0, 1, 2].filter((index) => index !== follower);
    const client = await OnceClient.connect({
      nodes: [nodeAt(follower), ...others.map(nodeAt)],
      username: 'admin',
      password: ADMIN_PASSWORD,
      logger: false,
    });
    clients.push(client);

    expect(client.node).toEqual(nodeAt(leader));
    const account = accountName('redirect');
    await expect(client.command('ledger.open', { account })).resolves.toEqual({
      account,
      balance: 0,
    });
    await expect(client.command('ledger.deposit', { account, amount: 3 })).resolves.toMatchObject({
      balance: 3,
    });
  });
});
