import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Status, randomClientId } from '@once/protocol';
import { OnceCluster, RawClient, bodyJson, freePorts, writeClusterKeyFile } from '@once/testing';
import { commandOk, registerOk } from '../support/sessions';
import { ADMIN_PASSWORD, accountName, runServiceToExit } from '../support/wire';

jest.setTimeout(120_000);

/** 64 KiB: a NATS message smaller than the gateway's 1 MiB frame limit. */
const MAX_PAYLOAD_BYTES = 64 * 1024;

/**
 * What a client sees of a cluster's nodes: PING says who leads, a follower
 * sends writes and reads to the leader's address, and an entry the
 * cluster's journal cannot carry is refused with the status PROTOCOL.md
 * names for a request the client must change, never retried forever.
 */
describe('given one NATS server and two once nodes', () => {
  let cluster: OnceCluster;
  let leader: number;
  let follower: number;
  beforeAll(async () => {
    cluster = await OnceCluster.start({
      natsServers: 1,
      nodes: 2,
      natsMaxPayloadBytes: MAX_PAYLOAD_BYTES,
      env: { ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD },
    });
    leader = await cluster.leader();
    follower = 1 - leader;
  });
  afterAll(() => cluster?.cleanup());

  const addressOf = (index: number) => `127.0.0.1:${cluster.nodes[index].port}`;

  it('when each node is PINGed, then each names itself, its role and the leader’s advertised address', async () => {
    await expect(cluster.ping(leader)).resolves.toMatchObject({
      ready: true,
      node: `node${leader + 1}`,
      role: 'leader',
      leader: addressOf(leader),
    });
    await expect(cluster.ping(follower)).resolves.toMatchObject({
      ready: true,
      node: `node${follower + 1}`,
      role: 'follower',
      leader: addressOf(leader),
    });
  });

  it('when a client REGISTERs or sends a COMMAND to the follower, then it is answered NOT_READY naming the leader, and nothing is journaled', async () => {
    const raw = await RawClient.connect(cluster.nodes[follower].port);
    try {
      const before = (await cluster.ping(follower))!.commit;
      const client = randomClientId();
      const register = await raw.register(client, 'admin', ADMIN_PASSWORD);
      expect(register.header).toMatchObject({ command: Command.Reply, status: Status.NotReady });
      expect(bodyJson(register)).toEqual({
        ok: false,
        error: {
          code: 'NOT_READY',
          message: `this node is a follower; the leader is at ${addressOf(leader)}`,
          leader: addressOf(leader),
        },
      });
      const command = await raw.command(client, 1, 1, 'ledger.open', { account: 'x' });
      expect(command.header.status).toBe(Status.NotReady);
      expect(bodyJson(command)).toMatchObject({ error: { leader: addressOf(leader) } });
      expect((await cluster.ping(leader))!.commit).toBe(before);
    } finally {
      raw.destroy();
    }
  });

  it('when a session written on the leader is read back, then the follower has applied the same op', async () => {
    const raw = await RawClient.connect(cluster.nodes[leader].port);
    try {
      const { session } = await registerOk(raw, randomClientId());
      const reply = await commandOk(raw, session, 1, 'ledger.open', { account: accountName('c') });
      await cluster.appliedEverywhere(reply.header.commit);
    } finally {
      raw.destroy();
    }
  });

  it('when a COMMAND makes an entry larger than a NATS message, then it is refused INVALID_REQUEST with nothing journaled, the connection stays open, and its number serves a smaller request', async () => {
    const raw = await RawClient.connect(cluster.nodes[leader].port);
    try {
      const { session } = await registerOk(raw, randomClientId());
      const before = (await cluster.ping(leader))!.commit;
      const account = accountName('big');
      const data = { account, note: 'x'.repeat(MAX_PAYLOAD_BYTES + 1) };
      const sentBodyBytes = Buffer.byteLength(JSON.stringify({ pattern: 'ledger.open', data }));
      const huge = await raw.command(
        session.client,
        session.epoch,
        1,
        'ledger.open',
        data,
        session.resumeToken,
      );
      expect(huge.header).toMatchObject({ command: Command.Reply, status: Status.InvalidRequest });
      const message = (bodyJson(huge) as { error: { message: string } }).error.message;
      expect(bodyJson(huge)).toEqual({ ok: false, error: { code: 'INVALID_REQUEST', message } });
      // Refused before admission, against the journal's limit: the NATS message less its headers and the entry's.
      const refusal =
        /^the request makes a journal entry body of (\d+) bytes, more than the (\d+) this node's journal stores in one entry; send a smaller request$/;
      expect(message).toMatch(refusal);
      const [, bodyBytes, bodyBytesMax] = refusal.exec(message)!.map(Number);
      expect(bodyBytes).toBe(sentBodyBytes);
      expect(bodyBytesMax).toBeLessThan(MAX_PAYLOAD_BYTES);
      expect(bodyBytesMax).toBeGreaterThan(MAX_PAYLOAD_BYTES - 2048);
      expect((await cluster.ping(leader))!.commit).toBe(before);
      await commandOk(raw, session, 1, 'ledger.open', { account });
      await commandOk(raw, session, 2, 'ledger.deposit', { account, amount: 3 });
    } finally {
      raw.destroy();
    }
  });
});

describe('given cluster settings naming a NATS server nobody runs', () => {
  it('when the reference service starts, then it exits 1 saying which NATS servers it could not reach', async () => {
    const [port] = await freePorts(1);
    const dataDir = join(tmpdir(), `once-no-nats-${port}`);
    const key = await writeClusterKeyFile();
    const { code, output } = await runServiceToExit({
      ONCE_NATS_SERVERS: `nats://127.0.0.1:${port}`,
      ONCE_NODE_ID: 'n1',
      ONCE_DATA_DIR: dataDir,
      ONCE_CLUSTER_KEY_FILE: key.file,
    }).finally(async () => {
      await rm(dataDir, { recursive: true, force: true });
      await rm(key.dir, { recursive: true, force: true });
    });
    expect(code).toBe(1);
    expect(output).toContain(
      `once: cannot start: cannot reach the cluster's NATS servers (nats://127.0.0.1:${port}): connection refused (NATS_UNREACHABLE)`,
    );
  });
});
