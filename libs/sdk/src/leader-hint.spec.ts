import { HintingNode, WatchedListener } from './__fixtures__/hinting-node.fixture';
import { ConnectError } from './errors/connect.error';
import { LeaderNotTrustedError } from './errors/leader-not-trusted.error';
import { OnceClient } from './once-client';
import { type OnceClientEvent } from './once-client-event';
import { type OnceClientOptions } from './once-client-options';

const FAST = { initialDelayMs: 5, delayMsMax: 20 };
const at = (port: number) => ({ host: '127.0.0.1', port });
const CREDENTIALS = { username: 'u', password: 'not-in-any-message' };

/** A logger that keeps its lines. */
function keptLines() {
  const lines: string[] = [];
  return { lines, logger: { warn: (line: string) => lines.push(line) } };
}

/** What `connect()` rejected with (the test fails if it resolves). */
async function connectFailure(options: OnceClientOptions): Promise<unknown> {
  const client = await OnceClient.connect(options).catch((error: unknown) => error);
  if (client instanceof OnceClient) {
    await client.close({ force: true });
    throw new Error('connect() resolved');
  }
  return client;
}

describe('leader hints the client may not trust', () => {
  let forged: WatchedListener;
  const nodes: HintingNode[] = [];
  const clients: OnceClient[] = [];
  const startNode = async (mode: HintingNode['mode']) => {
    const node = await HintingNode.start(mode);
    nodes.push(node);
    return node;
  };

  beforeEach(async () => {
    forged = await WatchedListener.start();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close({ force: true });
    for (const node of nodes.splice(0)) await node.close();
    await forged.close();
  });

  describe('given a follower that names, over plain TCP, a leader at an address the client was not given', () => {
    it('when the client is given host/port of the follower, then connect() fails at once with LEADER_NOT_TRUSTED naming the follower, its role and the leader, and never connects there', async () => {
      const follower = await startNode({ kind: 'follower', leader: forged.address });
      const { lines, logger } = keptLines();

      const failure = await connectFailure({
        port: follower.port,
        ...CREDENTIALS,
        reconnect: FAST,
        logger,
      });

      expect(failure).toBeInstanceOf(LeaderNotTrustedError);
      expect(failure).toMatchObject({
        code: 'LEADER_NOT_TRUSTED',
        node: follower.address,
        role: 'follower',
        leader: forged.address,
        status: 'NOT_READY',
        trust: 'tls',
      });
      const message = (failure as Error).message;
      expect(message).toContain(`${follower.address} is a follower (NOT_READY)`);
      expect(message).toContain(`it names ${forged.address} as the leader`);
      expect(message).toContain('plain TCP, not verified TLS');
      expect(message).not.toContain(CREDENTIALS.password);
      // one REGISTER, no retry loop, nothing waited for
      expect(follower.received).toEqual([1]);
      expect(forged.connections).toBe(0);
      expect(lines).toEqual([]);
    });

    it('when the client is given nodes (learning from PING on), then the PING leader is not learnt either, and connect() fails the same way', async () => {
      const follower = await startNode({ kind: 'follower', leader: forged.address });

      const failure = await connectFailure({
        nodes: [at(follower.port)],
        ...CREDENTIALS,
        reconnect: FAST,
        logger: false,
      });

      expect(failure).toBeInstanceOf(LeaderNotTrustedError);
      expect(follower.received).toEqual([5, 1]);
      expect(forged.connections).toBe(0);
    });

    it('when another configured node serves, then the client binds there: one untrusted hint does not fail a round that binds', async () => {
      const follower = await startNode({ kind: 'follower', leader: forged.address });
      const leader = await startNode({ kind: 'serving' });
      const client = await OnceClient.connect({
        nodes: [at(follower.port), at(leader.port)],
        ...CREDENTIALS,
        logger: false,
      });
      clients.push(client);

      expect(client.node).toEqual(at(leader.port));
      expect(client.nodes).toEqual([at(follower.port), at(leader.port)]);
      expect(forged.connections).toBe(0);
    });

    it("when trustLeaderHints is 'any', then the hint is followed (the former behaviour, for trusted networks)", async () => {
      const leader = await startNode({ kind: 'serving' });
      const follower = await startNode({ kind: 'follower', leader: leader.address });
      const client = await OnceClient.connect({
        port: follower.port,
        ...CREDENTIALS,
        trustLeaderHints: 'any',
        logger: false,
      });
      clients.push(client);

      expect(client.node).toEqual(at(leader.port));
      await expect(client.command('x.y', {})).resolves.toEqual({ served: true });
    });
  });

  describe('given a follower that names a configured node as its leader', () => {
    it("when the client lists both, then it follows the hint and binds on the leader, under trustLeaderHints 'configured' too", async () => {
      const leader = await startNode({ kind: 'serving' });
      const follower = await startNode({ kind: 'follower', leader: leader.address });
      const client = await OnceClient.connect({
        nodes: [at(follower.port), at(leader.port)],
        ...CREDENTIALS,
        trustLeaderHints: 'configured',
        logger: false,
      });
      clients.push(client);

      expect(client.node).toEqual(at(leader.port));
      await expect(client.command('x.y', {})).resolves.toEqual({ served: true });
    });
  });

  describe('given a node that answers NOT_READY naming no leader', () => {
    it('when attemptsMax runs out, then every wait was reported (event and a non-flooding log line) and ConnectError keeps the last answer', async () => {
      const follower = await startNode({ kind: 'follower', leader: null });
      const { lines, logger } = keptLines();
      const events: OnceClientEvent[] = [];

      const failure = await connectFailure({
        port: follower.port,
        ...CREDENTIALS,
        reconnect: { ...FAST, attemptsMax: 3 },
        logger,
        onEvent: (event) => events.push(event),
      });

      expect(failure).toBeInstanceOf(ConnectError);
      expect(failure).toMatchObject({
        code: 'CONNECT_FAILED',
        lastAnswer: {
          node: follower.address,
          status: 'NOT_READY',
          role: 'none',
          leader: undefined,
        },
      });
      expect((failure as Error).message).toBe(
        `no session bound after 3 reconnect attempts; the last: ${follower.address} is not ready (NOT_READY) and names no leader`,
      );
      const waits = events.filter((event) => event.type === 'waiting');
      expect(waits.map((event) => event.attempt)).toEqual([1, 2, 3]);
      expect(waits[0]).toMatchObject({
        reason: 'not-ready',
        node: follower.address,
        leader: undefined,
        message: `${follower.address} is not ready (NOT_READY) and names no leader`,
      });
      // the first wait is logged; the next two fall within the rate limit
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('waiting');
      expect(lines[0]).toContain(
        `${follower.address} is not ready (NOT_READY) and names no leader`,
      );
    });
  });

  describe('given a client bound on its only configured node', () => {
    it('when that node becomes a follower naming a forged leader, then the client does not go there: it waits, saying why, and resumes when the node serves again', async () => {
      const node = await startNode({ kind: 'serving' });
      const { lines, logger } = keptLines();
      const client = await OnceClient.connect({
        port: node.port,
        ...CREDENTIALS,
        reconnect: { initialDelayMs: 20, delayMsMax: 50 },
        logger,
      });
      clients.push(client);
      const events: OnceClientEvent[] = [];
      client.events$.subscribe((event) => events.push(event));

      // When the node turns follower and names the forged address
      node.mode = { kind: 'follower', leader: forged.address };
      const pending = client.command('x.y', {});
      await waitFor(() => events.some((event) => event.type === 'waiting'));

      // Then the client waits, saying it does not trust the leader named
      expect(events.find((event) => event.type === 'waiting')).toMatchObject({
        reason: 'leader-not-trusted',
        node: node.address,
        leader: forged.address,
      });
      expect(lines[0]).toContain(`it names ${forged.address} as the leader; not followed`);

      // and once the node serves again, the command is settled there
      node.mode = { kind: 'serving' };
      await expect(pending).resolves.toEqual({ served: true });
      expect(forged.connections).toBe(0);
      expect(lines.at(-1)).toContain(`session bound on ${node.address}`);
    });
  });
});

/** Resolves once `condition` holds, polling every 10 ms (fails the test after 10 s). */
async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 1000; tries += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the condition never held');
}
