import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { clusterNames } from '@once/cluster';
import { checksum } from '@once/protocol/internal';
import { randomClientId } from '@once/protocol';
import { OnceCluster, RawClient, outcomeOf } from '@once/testing';
import { commandOk, registerOk } from '../support/sessions';
import { ADMIN_PASSWORD } from '../support/wire';

jest.setTimeout(120_000);

/**
 * In cluster mode every journal entry is a message of the cluster's stream,
 * readable by whoever may read the stream. A command whose body holds a
 * password (users.create) must leave there nothing cheaper to guess than its
 * scrypt hash: neither the password nor the XXH3 checksum of the body the
 * client sent.
 */
describe('given one NATS server and one once node, and an admin who created a user', () => {
  const PASSWORD = 'dave-stream-Secret-5e1c8';
  let cluster: OnceCluster;
  let body: Buffer;

  beforeAll(async () => {
    cluster = await OnceCluster.start({
      natsServers: 1,
      nodes: 1,
      env: { ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD },
    });
    const leader = await cluster.leader();
    const raw = await RawClient.connect(cluster.nodes[leader].port);
    try {
      const { session } = await registerOk(raw, randomClientId());
      const data = { username: 'dave', password: PASSWORD };
      body = Buffer.from(JSON.stringify({ pattern: 'users.create', data }));
      const created = await commandOk(raw, session, 1, 'users.create', data);
      expect(outcomeOf(created)).toMatchObject({ ok: true });
      // The reply still names the request it answers.
      expect(Buffer.from(created.header.resumeToken)).toEqual(checksum(body));
    } finally {
      raw.destroy();
    }
  });
  afterAll(() => cluster?.cleanup());

  it('when every message of the stream is read, then none holds the password or the checksum of the users.create body', async () => {
    const connection = await connect({ servers: cluster.nats.urls });
    try {
      const stream = clusterNames('once').stream;
      const last = (await (await jetstreamManager(connection)).streams.info(stream)).state.last_seq;
      expect(last).toBeGreaterThan(0);
      const consumer = await jetstream(connection).consumers.get(stream, {
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: 1,
      });
      const payloads: Buffer[] = [];
      const messages = await consumer.consume({ max_messages: 256 });
      for await (const message of messages) {
        payloads.push(Buffer.from(message.data));
        if (message.seq >= last) break;
      }
      await messages.close();
      const sum = checksum(body);
      const found = payloads.flatMap((payload, index) => [
        ...(payload.includes(sum) ? [`the body checksum in message ${index + 1}`] : []),
        ...(payload.includes(Buffer.from(PASSWORD))
          ? [`the password in message ${index + 1}`]
          : []),
      ]);
      expect(payloads.length).toBe(last);
      expect(found).toEqual([]);
    } finally {
      await connection.close();
    }
  });
});
