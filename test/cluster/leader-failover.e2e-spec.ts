import { lastValueFrom, toArray } from 'rxjs';
import { OnceClientProxy } from '@once/nest-client';
import { Command, type Frame, Status, randomClientId } from '@once/protocol';
import { type OnceCluster as Cluster, OnceCluster, RawClient, eventually } from '@once/testing';
import { expectSameStateEverywhere } from '../support/cluster-state';
import { DepositLoad, clusterClient, nodesBound } from '../support/cluster-load';
import { PipelinedDepositor } from '../support/pipelined-depositor';
import { registerOk } from '../support/sessions';
import { ADMIN_PASSWORD, TestSession, accountName } from '../support/wire';

jest.setTimeout(240_000);

/** Deposits of the raw-protocol client of the first scenario. */
const RAW_DEPOSITS = 300;

/** `count` frames from `raw`, in arrival order. */
async function framesFrom(raw: RawClient, count: number): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (let i = 0; i < count; i++) frames.push(await raw.next(20_000));
  return frames;
}

/** The address of node `index`, as clients list it. */
function addressOf(cluster: Cluster, index: number) {
  return { host: '127.0.0.1', port: cluster.nodes[index].port };
}

/**
 * The once leader dies (SIGKILL) with clients' commands in flight: every
 * acknowledged write survives, none applies twice, retries are answered with
 * the first reply's bytes whatever node answers, and every node ends with
 * the same state at the same op.
 */
describe('given three NATS servers with the recommended account layout and three once nodes under client load', () => {
  let cluster: OnceCluster;
  beforeAll(async () => {
    // The nodes connect as the layout's user (deploy/nats/once-accounts.conf):
    // failover under load works within its permissions.
    cluster = await OnceCluster.start({
      natsAuth: 'accounts',
      env: { ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD },
    });
  });
  afterAll(() => cluster?.cleanup());

  it('when the once leader is SIGKILLed while several clients pipeline deposits, then nothing acknowledged is lost, nothing applies twice, and every node holds the same state', async () => {
    // Given three SDK clients and one raw-protocol client pipelining deposits
    const leader = await cluster.leader();
    const rawAccount = accountName('raw');
    const opener = await clusterClient(cluster);
    await opener.client.command('ledger.open', { account: rawAccount });
    await opener.client.close();
    let rawPort = cluster.nodes[leader].port;
    const rawSession = await RawClient.connect(rawPort);
    const { session } = await registerOk(rawSession, randomClientId());
    rawSession.destroy();
    const raw = new PipelinedDepositor({
      port: () => rawPort,
      session,
      account: rawAccount,
      total: RAW_DEPOSITS,
      window: 8,
      nodeBack: async () => {
        rawPort = cluster.nodes[await cluster.leader()].port;
      },
      resumeBy: () => 'token',
    });
    const load = await DepositLoad.start(cluster, 3, 150);
    const rawRun = raw.run();

    // When the leader is SIGKILLed while every client still has deposits to make
    await load.eachSettledAtLeast(30);
    await eventually(() => raw.acknowledged >= 30, 'the raw client at 30 deposits');
    expect(load.leastUnsettled).toBeGreaterThan(0);
    expect(raw.acknowledged).toBeLessThan(RAW_DEPOSITS);
    await cluster.kill(leader);

    // Then every client goes on at the new leader and every deposit applies exactly once
    await load.expectExactlyOnce();
    await rawRun;
    expect(raw.anomalies).toEqual([]);
    expect([...raw.acknowledgements.keys()].sort((a, b) => a - b)).toEqual(
      Array.from({ length: RAW_DEPOSITS }, (_, index) => index + 1),
    );
    expect(raw.resumes).toHaveLength(1);
    const next = await cluster.leader();
    expect(next).not.toBe(leader);
    await load.close();

    // And the raw client's last replies, asked again, come back byte for byte
    const retry = await RawClient.connect(cluster.nodes[next].port);
    try {
      const lastEight = Array.from({ length: 8 }, (_, index) => RAW_DEPOSITS - 7 + index);
      for (const request of lastEight) retry.write(raw.frameOf(request));
      const again = await framesFrom(retry, 8);
      expect(again.map((frame) => frame.raw.toString('hex'))).toEqual(
        lastEight.map((request) => raw.replies.get(request)!.toString('hex')),
      );
    } finally {
      retry.destroy();
    }

    await expectSameStateEverywhere(cluster);
  });

  it("when a COMMAND committed by the old leader loses its reply with it, then the new leader answers its retry with the old leader's reply byte for byte, after a resume by token and by REGISTER", async () => {
    // Given a raw session on the leader, and an account whose deposit k leaves balance k
    const leader = await cluster.leader();
    const account = accountName('bytes');
    const opener = await clusterClient(cluster);
    await opener.client.command('ledger.open', { account });
    await opener.client.close();
    const connection = await RawClient.connect(cluster.nodes[leader].port);
    const session = await TestSession.open(connection);
    const deposit = (request: number, epoch = session.epoch) =>
      session.commandBytes('ledger.deposit', { account, amount: 1 }, request, epoch);

    // When deposits 1..4 commit on the leader, their replies are set aside as if
    // lost, deposits 5..8 are sent, and the leader is SIGKILLed
    for (let request = 1; request <= 4; request++) connection.write(deposit(request));
    const fromOldLeader = await framesFrom(connection, 4);
    expect(fromOldLeader.map((frame) => frame.header.status)).toEqual([0, 0, 0, 0]);
    for (let request = 5; request <= 8; request++) connection.write(deposit(request));
    await cluster.kill(leader);
    connection.destroy();

    // Then the new leader answers the resent 1..8 (resume by token): 1..4 with
    // the old leader's bytes, 5..8 each applied once
    const next = await cluster.leader();
    expect(next).not.toBe(leader);
    const resumed = await RawClient.connect(cluster.nodes[next].port);
    try {
      for (let request = 1; request <= 8; request++) resumed.write(deposit(request));
      const answers = await framesFrom(resumed, 8);
      expect(answers.slice(0, 4).map((frame) => frame.raw.toString('hex'))).toEqual(
        fromOldLeader.map((frame) => frame.raw.toString('hex')),
      );
      expect(
        answers.map((frame) => ({
          command: frame.header.command,
          status: frame.header.status,
          request: frame.header.request,
          body: frame.body.toString('utf8'),
        })),
      ).toEqual(
        [1, 2, 3, 4, 5, 6, 7, 8].map((request) => ({
          command: Command.Reply,
          status: Status.Ok,
          request,
          body: JSON.stringify({ ok: true, result: { balance: request } }),
        })),
      );

      // And after a REGISTER of the same client id (the epoch moves), the
      // same numbers are answered with the same bytes again
      const again = await resumed.register(session.client, 'admin', ADMIN_PASSWORD);
      expect(again.header).toMatchObject({ status: Status.Ok, watermark: 8 });
      const epoch = again.header.session;
      expect(epoch).toBeGreaterThan(session.epoch);
      for (let request = 1; request <= 8; request++) resumed.write(deposit(request, epoch));
      const cached = await framesFrom(resumed, 8);
      expect(cached.map((frame) => frame.raw.toString('hex'))).toEqual(
        answers.map((frame) => frame.raw.toString('hex')),
      );
    } finally {
      resumed.destroy();
    }
    const reader = await clusterClient(cluster);
    await expect(reader.client.query('ledger.balance', { account })).resolves.toEqual({
      balance: 8,
    });
    await reader.client.close();

    await expectSameStateEverywhere(cluster);
  });

  it('when the leader is SIGKILLed under an OnceClientProxy with nodes, then every send resolves exactly once and the balance reconciles', async () => {
    // Given a NestJS client proxy over every node, sending deposits
    const leader = await cluster.leader();
    const proxy = new OnceClientProxy({
      nodes: cluster.addresses,
      username: 'admin',
      password: ADMIN_PASSWORD,
      requestTimeoutMs: 60_000,
      reconnect: { initialDelayMs: 20, delayMsMax: 500 },
    });
    try {
      const account = accountName('proxy');
      await expect(lastValueFrom(proxy.send('ledger.open', { account }))).resolves.toEqual({
        account,
        balance: 0,
      });
      let settled = 0;
      const sends = Array.from({ length: 120 }, () =>
        lastValueFrom(
          proxy.send<{ balance: number }>('ledger.deposit', { account, amount: 1 }).pipe(toArray()),
        ).finally(() => settled++),
      );

      // When the leader is SIGKILLed with sends in flight
      await eventually(() => settled >= 30, '30 sends settled');
      await cluster.kill(leader);

      // Then each send emitted one balance and completed, every balance once
      const emitted = await Promise.all(sends);
      expect(emitted.map((values) => values.length)).toEqual(sends.map(() => 1));
      expect(emitted.map(([value]) => value.balance).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 120 }, (_, index) => index + 1),
      );
      await expect(lastValueFrom(proxy.send('ledger.balance', { account }))).resolves.toEqual({
        balance: 120,
      });
      expect(await cluster.leader()).not.toBe(leader);
    } finally {
      await proxy.close();
    }

    await expectSameStateEverywhere(cluster);
  });

  it('when the leader is SIGKILLed and then the next leader too, then the client fails over twice, and the killed nodes restarted from their data directories catch up', async () => {
    // Given a client pipelining deposits
    const first = await cluster.leader();
    const load = await DepositLoad.start(cluster, 1, 200);
    const [{ events }] = load.clients;

    // When the leader is SIGKILLed, the client goes on at the next leader,
    // and that one is SIGKILLed too
    await load.eachSettledAtLeast(30);
    expect(load.leastUnsettled).toBeGreaterThan(0);
    await cluster.kill(first);
    const second = await cluster.leader();
    expect(second).not.toBe(first);
    await load.eachSettledAtLeast(90);
    expect(load.leastUnsettled).toBeGreaterThan(0);
    await cluster.kill(second);
    const third = await cluster.leader();

    // Then the client is served by the last node, every deposit exactly once
    await load.expectExactlyOnce();
    expect(new Set([first, second, third]).size).toBe(3);
    expect(nodesBound(events)).toEqual([addressOf(cluster, second), addressOf(cluster, third)]);
    await load.close();

    // And the two killed nodes, restarted, reach the same state
    await expectSameStateEverywhere(cluster);
  });

  it('when a follower is SIGKILLed, then writes go on, and the follower restarted from its data directory catches up to the leader', async () => {
    // Given a client pipelining deposits
    const leader = await cluster.leader();
    const follower = (leader + 1) % cluster.nodes.length;
    const load = await DepositLoad.start(cluster, 2, 150);

    // When a follower is SIGKILLed
    await load.eachSettledAtLeast(30);
    expect(load.leastUnsettled).toBeGreaterThan(0);
    await cluster.kill(follower);

    // Then every deposit still commits, with the follower down all along
    await load.expectExactlyOnce();
    expect(cluster.nodes[follower].running).toBe(false);
    expect(await cluster.leader()).toBe(leader);
    await load.close();

    // And the follower, restarted, applies up to the leader's commit
    await cluster.restart(follower);
    const commit = (await cluster.ping(leader))!.commit;
    await cluster.appliedEverywhere(commit);
    expect((await cluster.ping(follower))!.role).toBe('follower');

    await expectSameStateEverywhere(cluster);
  });
});
