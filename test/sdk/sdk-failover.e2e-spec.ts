import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConnectError,
  LeaderNotTrustedError,
  type NodeAddress,
  OnceClient,
  type OnceClientEvent,
  type OnceClientOptions,
  OutcomeUnknownError,
} from '@once/sdk';
import { type ServiceProcess, TcpProxy, eventually } from '@once/testing';
import { EarlyListenerProcess } from '../nest/support/early-listener';
import { ADMIN_PASSWORD, startService } from '../support/wire';
import { DepositRun } from './support/deposit-run';
import { LeaderReportingNode } from './support/leader-reporting-node';

const IN_FLIGHT = 8;
const TOTAL = 120;

const at = (port: number): NodeAddress => ({ host: '127.0.0.1', port });

/** A port nothing listens on (it was free a moment ago). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Connects as admin to `nodes`, recording every event from then on. */
async function connect(
  nodes: NodeAddress[],
  extra: Partial<OnceClientOptions> = {},
): Promise<{ client: OnceClient; events: OnceClientEvent[] }> {
  const client = await OnceClient.connect({
    nodes,
    username: 'admin',
    password: ADMIN_PASSWORD,
    inFlightMax: IN_FLIGHT,
    reconnect: { initialDelayMs: 10, delayMsMax: 200 },
    logger: false,
    ...extra,
  });
  const events: OnceClientEvent[] = [];
  client.events$.subscribe((event) => events.push(event));
  return { client, events };
}

/** The nodes the client was bound on, in order, as `events$` reported them. */
function nodesBound(events: readonly OnceClientEvent[]): NodeAddress[] {
  return events.flatMap((event) =>
    event.type === 'node' ? [{ host: event.host, port: event.port }] : [],
  );
}

/**
 * The outcome every failover scenario must end with: each deposit applied
 * exactly once and answered with the balance right after it, no request
 * number skipped or reused, the same session throughout (same client id and
 * epoch: resumed, never re-created), nothing left in doubt.
 */
async function expectExactlyOnce(
  client: OnceClient,
  run: DepositRun,
  account: string,
  session: { clientId: string; epoch: number },
  events: readonly OnceClientEvent[],
): Promise<void> {
  const balances = await run.balances;
  expect(run.rejected).toEqual([]);
  expect(run.rejected.some((error) => error instanceof OutcomeUnknownError)).toBe(false);
  expect(balances).toEqual(Array.from({ length: run.total }, (_, index) => index + 1));
  await expect(client.query('ledger.balance', { account })).resolves.toEqual({
    balance: run.total,
  });
  expect(client.identity).toMatchObject({
    ...session,
    nextRequest: run.total + 2,
    watermark: run.total + 1,
  });
  expect(events.filter((event) => event.type === 'session-lost')).toEqual([]);
  expect(events.filter((event) => event.type === 'connected')).toEqual([]);
}

describe('given one once service reachable at two addresses (TCP proxies A and B), so that its sessions exist on both', () => {
  let service: ServiceProcess;
  let a: TcpProxy;
  let b: TcpProxy;
  /** Another session, straight to the service: reads what committed, whatever the proxies do. */
  let observer: OnceClient;
  const clients: OnceClient[] = [];
  const balanceOf = (account: string) => async () =>
    (await observer.query<{ balance: number }>('ledger.balance', { account })).balance;

  beforeAll(async () => {
    service = await startService();
    a = await TcpProxy.start({ targetPort: service.port });
    b = await TcpProxy.start({ targetPort: service.port });
    observer = await OnceClient.connect({
      port: service.port,
      username: 'admin',
      password: ADMIN_PASSWORD,
    });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close({ force: true });
    for (const proxy of [a, b]) {
      proxy.accepting = true;
      proxy.resume();
    }
  });
  afterAll(async () => {
    await observer?.close();
    await a?.close();
    await b?.close();
    await service?.cleanup();
  });

  it('when A is cut and refuses new connections with deposits in doubt, then the client fails over to B, resumes the same session and settles every deposit exactly once', async () => {
    // Given a client bound through A, pipelining deposits
    const { client, events } = await connect([at(a.port), at(b.port)]);
    clients.push(client);
    expect(client.node).toEqual(at(a.port));
    await client.command('ledger.open', { account: 'failover' });
    const session = { clientId: client.identity.clientId, epoch: client.identity.epoch };
    const run = new DepositRun(client, 'failover', TOTAL);

    // When A goes away with IN_FLIGHT deposits committed, their replies lost
    await run.settledAtLeast(30);
    const { inDoubt } = await run.cutInDoubt(a, IN_FLIGHT, balanceOf('failover'));

    // Then they are settled through B, under their numbers, in the same session
    expect(inDoubt).toBe(IN_FLIGHT);
    await expectExactlyOnce(client, run, 'failover', session, events);
    expect(nodesBound(events)).toEqual([at(b.port)]);
    expect(client.node).toEqual(at(b.port));
    expect(events).toContainEqual({ type: 'resumed', how: 'token', ...session });
  });

  it('when A goes away, then B, each with deposits in doubt, then the client fails over A → B → A and every deposit still applies exactly once', async () => {
    // Given a client bound through A
    const { client, events } = await connect([at(a.port), at(b.port)]);
    clients.push(client);
    await client.command('ledger.open', { account: 'twice' });
    const session = { clientId: client.identity.clientId, epoch: client.identity.epoch };
    const run = new DepositRun(client, 'twice', TOTAL);

    // When A is cut (the client moves to B), A comes back, and then B is cut
    await run.settledAtLeast(20);
    await run.cutInDoubt(a, IN_FLIGHT, balanceOf('twice'));
    await eventually(() => client.node?.port === b.port, 'the client on B');
    a.accepting = true;
    await run.settledAtLeast(60);
    await run.cutInDoubt(b, IN_FLIGHT, balanceOf('twice'));

    // Then the client went back to A, and nothing was lost or applied twice
    await expectExactlyOnce(client, run, 'twice', session, events);
    expect(nodesBound(events)).toEqual([at(b.port), at(a.port)]);
    expect(client.node).toEqual(at(a.port));
  });

  it('when the first node listed has nothing listening, then connect() binds through the second', async () => {
    const dead = await deadPort();
    const { client } = await connect([at(dead), at(b.port)]);
    clients.push(client);

    expect(client.node).toEqual(at(b.port));
    await expect(client.command('ledger.open', { account: 'dead-first' })).resolves.toEqual({
      account: 'dead-first',
      balance: 0,
    });
    expect(client.nodes).toEqual([at(dead), at(b.port)]);
  });

  it('when no node listed can be reached, then connect() rejects with ConnectError naming each', async () => {
    const first = await deadPort();
    a.accepting = false;
    const failure: unknown = await connect([at(first), at(a.port)]).catch(
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(ConnectError);
    const message = (failure as Error).message;
    expect(message).toContain(`127.0.0.1:${first}`);
    expect(message).toContain('no session bound on any of 2 nodes');
  });

  describe('and a node that answers NOT_READY to everything (a once app whose listener opened before it initialised)', () => {
    let root: string;
    let notReady: EarlyListenerProcess;
    let notReadyPort: number;

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'once-sdk-failover-'));
      ({ app: notReady, port: notReadyPort } = await EarlyListenerProcess.start(
        join(root, 'data'),
      ));
    });
    afterAll(async () => {
      await notReady?.stop();
      if (root) await rm(root, { recursive: true, force: true });
    });

    it('when it is listed first, then connect() moves past its NOT_READY and binds on the next node', async () => {
      const { client } = await connect([at(notReadyPort), at(b.port)]);
      clients.push(client);

      expect(client.node).toEqual(at(b.port));
      await expect(client.command('ledger.open', { account: 'not-ready-first' })).resolves.toEqual({
        account: 'not-ready-first',
        balance: 0,
      });
      expect({ running: notReady.running, log: notReady.describe() }).toMatchObject({
        running: true,
      });
    });

    it('when A goes away with deposits in doubt and the next node answers NOT_READY, then the client moves on to B with the same frames and every deposit applies exactly once', async () => {
      // Given a client bound through A, with the NOT_READY node next in its list
      const { client, events } = await connect([at(a.port), at(notReadyPort), at(b.port)]);
      clients.push(client);
      await client.command('ledger.open', { account: 'not-ready' });
      const session = { clientId: client.identity.clientId, epoch: client.identity.epoch };
      const run = new DepositRun(client, 'not-ready', TOTAL);

      // When A is cut with deposits in doubt
      await run.settledAtLeast(30);
      await run.cutInDoubt(a, IN_FLIGHT, balanceOf('not-ready'));

      // Then the NOT_READY node was asked and passed over, and B settled everything
      await expectExactlyOnce(client, run, 'not-ready', session, events);
      expect(events).toContainEqual({
        type: 'disconnected',
        reason: expect.stringContaining(`127.0.0.1:${notReadyPort} is not ready`) as string,
      });
      expect(nodesBound(events)).toEqual([at(b.port)]);
    });
  });

  describe('and a cluster follower that cannot serve but reports its leader (B) in its PING reply', () => {
    let follower: LeaderReportingNode;
    beforeAll(async () => {
      follower = await LeaderReportingNode.start(`127.0.0.1:${b.port}`);
    });
    afterAll(() => follower?.close());

    it('when it is the only node configured, then B, reported over plain TCP, is neither learnt nor followed: connect() fails at once with LEADER_NOT_TRUSTED naming the follower and B', async () => {
      const before = follower.received.length;
      const failure: unknown = await connect([at(follower.port)]).catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(LeaderNotTrustedError);
      expect(failure).toMatchObject({
        node: `127.0.0.1:${follower.port}`,
        role: 'follower',
        leader: `127.0.0.1:${b.port}`,
      });
      // PING (5) first, then the REGISTER (1) it answered NOT_READY; nothing more
      expect(follower.received.slice(before)).toEqual([5, 1]);
    });

    it("when it is the only node configured and the client trusts any hint (trustLeaderHints: 'any'), then the client learns B from it, keeps the follower, and binds on B", async () => {
      const { client } = await connect([at(follower.port)], { trustLeaderHints: 'any' });
      clients.push(client);

      expect(client.nodes).toEqual([at(follower.port), at(b.port)]);
      expect(client.node).toEqual(at(b.port));
      await expect(client.command('ledger.open', { account: 'learnt' })).resolves.toEqual({
        account: 'learnt',
        balance: 0,
      });
    });

    it('when learning is turned off, then no PING is sent, and its NOT_READY naming B (not configured) fails connect() at once', async () => {
      const before = follower.received.length;
      const failure: unknown = await connect([at(follower.port)], {
        learnNodes: false,
        reconnect: { initialDelayMs: 10, delayMsMax: 20, attemptsMax: 5 },
      }).catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(LeaderNotTrustedError);
      expect(follower.received.slice(before)).toEqual([1]);
    });

    it('when B is configured too, then the client follows the hint there and binds', async () => {
      const { client } = await connect([at(follower.port), at(b.port)], { learnNodes: false });
      clients.push(client);

      expect(client.node).toEqual(at(b.port));
    });
  });

  describe('and two cluster followers F and G that answer NOT_READY naming B as their leader', () => {
    let f: LeaderReportingNode;
    let g: LeaderReportingNode;
    beforeAll(async () => {
      f = await LeaderReportingNode.start(`127.0.0.1:${b.port}`);
      g = await LeaderReportingNode.start(`127.0.0.1:${b.port}`);
    });
    afterAll(async () => {
      await f?.close();
      await g?.close();
    });

    it('when A is cut with deposits in doubt and F is next, then F sends the client straight to B (past G, listed before it), which settles every deposit under its own number exactly once', async () => {
      // Given a client bound through A, F next in its list, then G, then B
      const { client, events } = await connect([at(a.port), at(f.port), at(g.port), at(b.port)]);
      clients.push(client);
      expect(client.node).toEqual(at(a.port));
      await client.command('ledger.open', { account: 'hinted' });
      const session = { clientId: client.identity.clientId, epoch: client.identity.epoch };
      const run = new DepositRun(client, 'hinted', TOTAL);

      // When A is cut with deposits in doubt (deposit k is request k + 1)
      await run.settledAtLeast(30);
      await run.cutInDoubt(a, IN_FLIGHT, balanceOf('hinted'));
      const firstInDoubt = run.settled + 2;

      // Then F was offered the oldest deposit in doubt under its number, and named B
      await expectExactlyOnce(client, run, 'hinted', session, events);
      expect(f.commands).toEqual([firstInDoubt]);
      expect(events).toContainEqual({
        type: 'disconnected',
        reason: `127.0.0.1:${f.port} is a follower (NOT_READY); it names 127.0.0.1:${b.port} as the leader`,
      });
      // and the next connection went to B: G was never contacted
      expect(g.received).toEqual([]);
      expect(nodesBound(events)).toEqual([at(b.port)]);
      expect(client.node).toEqual(at(b.port));
      expect(events).toContainEqual({ type: 'resumed', how: 'token', ...session });
    });
  });

  describe('and two cluster followers that name each other as the leader', () => {
    let f: LeaderReportingNode;
    let g: LeaderReportingNode;
    beforeAll(async () => {
      f = await LeaderReportingNode.start(null);
      g = await LeaderReportingNode.start(`127.0.0.1:${f.port}`);
      f.leader = `127.0.0.1:${g.port}`;
    });
    afterAll(async () => {
      await f?.close();
      await g?.close();
    });

    it('when a client is given both, then it follows one hint per round, keeps its backoff rounds, and connect() gives up after attemptsMax rounds, keeping the last answer', async () => {
      const attemptsMax = 3;
      const failure: unknown = await connect([at(f.port), at(g.port)], {
        reconnect: { initialDelayMs: 10, delayMsMax: 20, attemptsMax },
      }).catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(ConnectError);
      expect((failure as Error).message).toContain(
        `no session bound after ${attemptsMax} reconnect attempts`,
      );
      expect((failure as ConnectError).lastAnswer).toMatchObject({
        status: 'NOT_READY',
        role: 'follower',
      });
      expect((failure as Error).message).toMatch(
        /is a follower \(NOT_READY\); it names 127\.0\.0\.1:\d+ as the leader/,
      );
      // Rounds 0 to attemptsMax, three REGISTERs each: the node a round starts
      // on, the one its hint names (followed at once), the next of the walk
      const registers = [...f.received, ...g.received].filter((operation) => operation === 1);
      expect(registers).toHaveLength(3 * (attemptsMax + 1));
    });
  });
});
