import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { clusterNames } from '@once/cluster';
import { ACCOUNTS_PASSWORDS, OnceCluster, eventually } from '@once/testing';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectSameStateEverywhere } from '../support/cluster-state';
import { clusterClient } from '../support/cluster-load';
import { ADMIN_PASSWORD, accountName, runServiceToExit } from '../support/wire';

jest.setTimeout(240_000);

const NAMES = clusterNames('once');

/**
 * The recommended NATS account layout (deploy/nats/once-accounts.conf): the
 * once nodes, as user `once` of account ONCE with only the permissions it
 * grants, elect a leader, append, follow and fail over; an outsider (user
 * `app` of account APPS, on the same servers) reaches neither the journal's
 * subject nor the lease key nor the ONCE account's JetStream API; an
 * anonymous client is not let in.
 */
describe('given three NATS servers with the recommended account layout and three once nodes in account ONCE', () => {
  let cluster: OnceCluster;
  const connections: NatsConnection[] = [];
  /** A connection of the test's own, as `user` of the layout. */
  const as = async (user: 'once' | 'app'): Promise<NatsConnection> => {
    const connection = await connect({
      servers: cluster.nats.urls,
      user,
      pass: ACCOUNTS_PASSWORDS[user],
    });
    connections.push(connection);
    return connection;
  };

  beforeAll(async () => {
    cluster = await OnceCluster.start({
      natsAuth: 'accounts',
      env: { ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD },
    });
  });
  afterAll(async () => {
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await cluster?.cleanup();
  });

  it('when clients write, the leader is SIGKILLed and clients write on, then every node applies every write and no server saw a permissions violation', async () => {
    // Given a leader elected under the layout's permissions
    const leader = await cluster.leader();
    const { client } = await clusterClient(cluster);
    const account = accountName('layout');
    try {
      await client.command('ledger.open', { account });
      for (let i = 0; i < 20; i++) await client.command('ledger.deposit', { account, amount: 1 });

      // When the leader is SIGKILLed and the clients go on writing
      await cluster.kill(leader);
      const next = await cluster.leader();
      expect(next).not.toBe(leader);
      for (let i = 0; i < 20; i++) await client.command('ledger.deposit', { account, amount: 1 });

      // Then every write applied once, the old leader follows again, every node holds the same state
      await expect(client.query('ledger.balance', { account })).resolves.toEqual({ balance: 40 });
    } finally {
      await client.close();
    }
    await expectSameStateEverywhere(cluster);
    for (const index of cluster.nats.names.keys()) {
      expect(cluster.nats.logs(index)).not.toMatch(/Violation/i);
    }
  });

  it('when an outsider of another account publishes a group to the journal subject and writes the lease key, then neither reaches the cluster', async () => {
    // Given the stream and the lease as the nodes see them
    const node = await as('once');
    const jsm = await jetstreamManager(node);
    const lease = await new Kvm(node).open(NAMES.bucket);
    const streamBefore = (await jsm.streams.info(NAMES.stream)).state.last_seq;
    const leaseBefore = await lease.get('leader');
    expect(leaseBefore?.string()).toContain('"node"');

    // When user app of account APPS publishes to the journal's subject and to the lease key,
    // and asks the JetStream API for the ONCE account's stream
    const outsider = await as('app');
    outsider.publish(NAMES.subject, 'forged group');
    outsider.publish(
      `$KV.${NAMES.bucket}.leader`,
      JSON.stringify({ node: 'evil', advertise: '127.0.0.1:17999' }),
    );
    await outsider.flush();
    const asked = await outsider.request(`$JS.API.STREAM.INFO.${NAMES.stream}`, '', {
      timeout: 5000,
    });

    // Then its JetStream is its own account's: the ONCE stream does not exist there
    expect(asked.json()).toMatchObject({ error: { code: 404 } });
    // And the cluster's stream and lease are untouched; the nodes still agree on the leader
    expect((await jsm.streams.info(NAMES.stream)).state.last_seq).toBe(streamBefore);
    const leaseAfter = await lease.get('leader');
    expect(leaseAfter?.string()).not.toContain('evil');
    expect(leaseAfter?.string()).toContain('"node"');
    await cluster.leader();
  });

  it("when a node's own credentials try what a node never does (delete the stream), then the servers refuse and log it", async () => {
    const node = await as('once');
    const jsm = await jetstreamManager(node);
    await expect(jsm.streams.delete(NAMES.stream)).rejects.toThrow(/permissions violation/i);
    // The servers log a violation (so the first scenario's clean logs mean something)
    const violation = new RegExp(`Violation.*\\$JS\\.API\\.STREAM\\.DELETE\\.${NAMES.stream}`);
    await eventually(
      () => cluster.nats.names.some((_, index) => violation.test(cluster.nats.logs(index))),
      'the violation in a server log',
    ).catch((error: Error) => {
      const logs = cluster.nats.names.map((_, index) => cluster.nats.logs(index)).join('');
      throw new Error(
        `${error.message}:\n${logs
          .split('\n')
          .filter((line) => /ERR|WRN|Violation/.test(line))
          .join('\n')}`,
      );
    });
    expect((await jsm.streams.info(NAMES.stream)).config.name).toBe(NAMES.stream);
  });

  it('when a node of a cluster the layout was not written for starts, then it does not serve and its log names the permission it lacks, once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'once-layout-other-'));
    const { code, output } = await runServiceToExit({
      ...cluster.nats.nodeEnv,
      ONCE_CLUSTER_KEY_FILE: cluster.keyFile,
      ONCE_NATS_SERVERS: cluster.nats.urls.join(','),
      ONCE_NODE_ID: 'stranger',
      ONCE_CLUSTER_NAME: 'other',
      ONCE_DATA_DIR: dataDir,
      ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD,
    }).finally(() => rm(dataDir, { recursive: true, force: true }));
    // (It keeps retrying, as for an outage; the run is cut after 20 s.)
    expect(code).not.toBe(0);
    const said = output.match(
      /stranger: NATS reported: Permissions Violation for Publish to "\$JS\.API\.STREAM\.INFO\.ONCE_other_JOURNAL"/g,
    );
    expect(said).toHaveLength(1);
    expect(output).not.toContain(ACCOUNTS_PASSWORDS.once);
  });

  it('when a client connects without credentials, then the servers refuse it', async () => {
    await expect(connect({ servers: cluster.nats.urls, maxReconnectAttempts: 0 })).rejects.toThrow(
      /Authorization Violation/i,
    );
  });
});
