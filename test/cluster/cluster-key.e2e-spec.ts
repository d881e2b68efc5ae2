import { readFileSync } from 'node:fs';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { headers } from '@nats-io/nats-core';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { JournalHeader, clusterConfigBucket, parseClusterKeys } from '@once/cluster/internal';
import { clusterNames } from '@once/cluster';
import { EntryKind } from '@once/journal';
import { encodeEntry } from '@once/journal/internal';
import { Status, randomClientId } from '@once/protocol';
import { ZERO_CHECKSUM, ZERO_CLIENT_ID, mintResumeToken } from '@once/protocol/internal';
import { OnceCluster, RawClient, bodyJson, eventually, writeClusterKeyFile } from '@once/testing';
import { PasswordHasher } from '@once/users';
import { commandOk, registerOk } from '../support/sessions';
import { ADMIN_PASSWORD, accountName, runServiceToExit } from '../support/wire';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

jest.setTimeout(240_000);

const EVIL = '127.0.0.1:17999';

interface Ping {
  readonly ready: boolean;
  readonly commit: number;
  readonly role: string;
  readonly leader: string | null;
  readonly stoppedApplying?: { code: string | null; op: number | null };
}

/** The metrics listener a node logged (ONCE_METRICS_PORT=0 picks a free port per start). */
function metricsUrlOf(logs: string): string {
  const urls = [...logs.matchAll(/metrics and health served at (http:\/\/\S+)/g)];
  const url = urls.at(-1)?.[1];
  if (url === undefined) throw new Error('the node logged no metrics listener');
  return url;
}

/**
 * Everything NATS holds is readable, and writable, by whoever reaches the
 * NATS servers. A cluster key each node is given out of band authenticates
 * the journal groups and the lease; the resume-token secret is derived from
 * it. These scenarios are the attacks of someone with NATS access only.
 */
describe('given three NATS servers and three once nodes sharing a cluster key', () => {
  let cluster: OnceCluster;
  let nc: NatsConnection;

  beforeAll(async () => {
    cluster = await OnceCluster.start({
      env: { ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD, ONCE_METRICS_PORT: '0' },
    });
    nc = await connect({ servers: cluster.nats.urls, maxReconnectAttempts: -1 });
  });
  afterAll(async () => {
    await nc?.close().catch(() => undefined);
    await cluster?.cleanup();
  });

  function pings(): Promise<(Ping | undefined)[]> {
    return Promise.all(cluster.nodes.map((_, index) => cluster.ping(index)));
  }

  it('when NATS is read from end to end, then the resume-token secret is nowhere in it, and no token minted from what is there resumes a session', async () => {
    // Given a session on the leader, and the secret the nodes derive from the key
    const leader = await cluster.leader();
    const raw = await RawClient.connect(cluster.nodes[leader].port);
    const client = randomClientId();
    const { session } = await registerOk(raw, client);
    raw.destroy();
    const secret = parseClusterKeys(readFileSync(cluster.keyFile, 'utf8'), 'key').resumeSecret(
      'once',
    );

    // When every value of both KV buckets is read
    const kvm = new Kvm(jetstream(nc));
    const values: Buffer[] = [];
    for (const bucket of [clusterConfigBucket('once'), clusterNames('once').bucket]) {
      const kv = await kvm.open(bucket);
      for await (const key of await kv.keys()) {
        const entry = await kv.get(key);
        if (entry?.operation === 'PUT') values.push(Buffer.from(entry.value));
      }
    }
    expect(values.length).toBeGreaterThan(0);

    // Then none holds the secret, raw or as text
    for (const value of values) {
      expect(value.includes(secret)).toBe(false);
      expect(value.toString('latin1')).not.toContain(secret.toString('hex'));
      expect(value.toString('latin1')).not.toContain(secret.toString('base64'));
    }
    // And a token minted from anything 32 bytes long in NATS does not resume the session,
    // while the one the node gave (derived from the key NATS never saw) does
    const fresh = await RawClient.connect(cluster.nodes[leader].port);
    try {
      const candidates = values.filter((value) => value.length === 32);
      candidates.push(Buffer.alloc(32, 0xee));
      for (const [i, candidate] of candidates.entries()) {
        const forged = mintResumeToken(candidate, client, session.epoch);
        const refused = await fresh.command(
          client,
          session.epoch,
          1,
          'ledger.open',
          {
            account: accountName(`forged${i}`),
          },
          forged,
        );
        expect(refused.header.status).not.toBe(Status.Ok);
      }
      const minted = mintResumeToken(secret, client, session.epoch);
      expect(minted.equals(Buffer.from(session.resumeToken))).toBe(true);
      await commandOk(fresh, session, 1, 'ledger.open', { account: accountName('token') });
    } finally {
      fresh.destroy();
    }
  });

  it('when a forged lease value naming another address is written again and again, then the leader keeps writing, no node names that address, and each node logs it', async () => {
    // Given the leader and a session on it
    const leader = await cluster.leader();
    const raw = await RawClient.connect(cluster.nodes[leader].port);
    const follower = await RawClient.connect(cluster.nodes[(leader + 1) % 3].port);
    const kv = await new Kvm(jetstream(nc)).open(clusterNames('once').bucket);
    try {
      const { session } = await registerOk(raw, randomClientId());
      const account = accountName('lease');
      await commandOk(raw, session, 1, 'ledger.open', { account });

      // When `evil` writes the lease key, round after round, while the client writes
      const seen: unknown[] = [];
      for (let round = 0; round < 5; round++) {
        await kv.put(
          'leader',
          JSON.stringify({ node: 'evil', advertise: EVIL, term: 1000 + round }),
        );
        // (each round lasts until the leader's renewal, refused for the new revision, wrote over it)
        await eventually(
          async () => {
            seen.push(...(await pings()));
            const value = (await kv.get('leader'))?.json<{ node: string }>();
            return value !== undefined && value.node !== 'evil';
          },
          `the leader writes over forged value ${round + 1}`,
        );
        // Then every write commits at the real leader
        await commandOk(raw, session, 2 + round, 'ledger.deposit', { account, amount: 1 });
        // And no node names the forged address, in PING or in a follower's NOT_READY
        seen.push(...(await pings()));
        const notReady = await follower.command(randomClientId(), 1, 1, 'ledger.open', {
          account,
        });
        expect(notReady.header.status).toBe(Status.NotReady);
        seen.push(bodyJson(notReady));
      }
      expect(JSON.stringify(seen)).not.toContain(EVIL);
      expect(await cluster.leader()).toBe(leader);
      // And the forged value is logged as what it is
      await eventually(
        () => cluster.nodes.every((node) => /LEASE_VALUE_UNVERIFIED/.test(node.logs)),
        'every node logs the forged lease value',
      );
      expect(cluster.nodes[leader].logs).not.toMatch(/lost the cluster lease/);
    } finally {
      raw.destroy();
      follower.destroy();
    }
  });

  it('when a node is started with another cluster key, then it refuses to follow the stream, naming why, and the others go on', async () => {
    const leader = await cluster.leader();
    const other = (leader + 2) % 3;
    const wrong = await writeClusterKeyFile();
    try {
      await expect(
        cluster.nodes[other].restart({ ONCE_CLUSTER_KEY_FILE: wrong.file }),
      ).rejects.toThrow(/JOURNAL_GROUP_UNVERIFIED/);
      expect(cluster.nodes[other].running).toBe(false);
      expect(cluster.nodes[other].logs).toMatch(/does not verify under this node's cluster key/);
      expect(cluster.nodes[other].logs).not.toContain(readFileSync(wrong.file, 'utf8').trim());
    } finally {
      await rm(wrong.dir, { recursive: true, force: true });
    }
    // Given its own key again, it comes back and follows
    await cluster.restart(other);
    expect(await cluster.leader()).toBe(leader);
  });

  it('when a group with valid entry checksums but a forged MAC is published at the next op, then no node applies it: every node stops there, says why in its log, PING and /health/ready, and REGISTER mallory fails', async () => {
    // Given the stream's end and a session on the leader
    const leader = await cluster.leader();
    const raw = await RawClient.connect(cluster.nodes[leader].port);
    const { session } = await registerOk(raw, randomClientId());
    const account = accountName('forge');
    await commandOk(raw, session, 1, 'ledger.open', { account });
    const names = clusterNames('once');
    const jsm = await jetstreamManager(nc);
    const last = await jsm.streams.getMessage(names.stream, { last_by_subj: names.subject });
    const nextOp = Number(last!.header.get(JournalHeader.lastOp)) + 1;
    await cluster.appliedEverywhere(nextOp - 1);

    // When a system `users.create mallory` entry is published as the next group
    const { salt, hash } = await new PasswordHasher().hash('mallory-pw');
    const entry = encodeEntry({
      kind: EntryKind.Command,
      client: ZERO_CLIENT_ID,
      session: 0,
      request: 0,
      userId: 0,
      requestChecksum: ZERO_CHECKSUM,
      body: Buffer.from(
        JSON.stringify({ pattern: 'users.create', data: { username: 'mallory', salt, hash } }),
      ),
      op: nextOp,
      timestamp: BigInt(Date.now()) * 1_000_000n,
    });
    const forged = headers();
    forged.set(JournalHeader.format, '1');
    forged.set(JournalHeader.firstOp, String(nextOp));
    forged.set(JournalHeader.lastOp, String(nextOp));
    forged.set('Once-Mac', Buffer.alloc(32, 1).toString('base64'));
    await jetstream(nc).publish(names.subject, entry, { headers: forged });
    // And the leader's next write meets it
    const refused = await raw
      .command(
        session.client,
        session.epoch,
        2,
        'ledger.deposit',
        {
          account,
          amount: 1,
        },
        session.resumeToken,
      )
      .catch(() => undefined);
    raw.destroy();
    expect(refused?.header.status).not.toBe(Status.Ok);

    // Then every node stops applying before the forged op, and says why in PING
    await eventually(
      async () =>
        (await pings()).every(
          (ping) =>
            ping?.stoppedApplying?.code === 'JOURNAL_GROUP_UNVERIFIED' &&
            ping.stoppedApplying.op === nextOp,
        ),
      'every node reports JOURNAL_GROUP_UNVERIFIED at the forged op',
      60_000,
    );
    for (const ping of await pings()) {
      expect(ping).toMatchObject({ ready: false });
      expect(ping!.commit).toBeLessThan(nextOp);
      expect(ping!.role).not.toBe('leader');
    }
    // And in its log and /health/ready
    for (const node of cluster.nodes) {
      expect(node.logs).toMatch(
        /stopped applying the journal at op \d+ \(JOURNAL_GROUP_UNVERIFIED\)/,
      );
      const ready = await fetch(`${metricsUrlOf(node.logs)}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({
        details: { once: { stoppedApplying: { code: 'JOURNAL_GROUP_UNVERIFIED', op: nextOp } } },
      });
    }
    // And mallory was never created anywhere
    for (const node of cluster.nodes) {
      const client = await RawClient.connect(node.port);
      try {
        const answer = await client.register(randomClientId(), 'mallory', 'mallory-pw');
        expect(answer.header.status).not.toBe(Status.Ok);
      } finally {
        client.destroy();
      }
    }
  });
});

describe('given cluster settings without a cluster key', () => {
  it('when the reference service starts, then it exits 1 with CLUSTER_KEY_MISSING before it touches NATS', async () => {
    const dataDir = join(tmpdir(), `once-no-key-${process.pid}`);
    const { code, output } = await runServiceToExit({
      ONCE_NATS_SERVERS: 'nats://127.0.0.1:4222',
      ONCE_NODE_ID: 'n1',
      ONCE_DATA_DIR: dataDir,
    }).finally(() => rm(dataDir, { recursive: true, force: true }));
    expect(code).toBe(1);
    expect(output).toMatch(
      /cannot start: cluster mode needs the cluster key: set ONCE_CLUSTER_KEY_FILE.*\(CLUSTER_KEY_MISSING\)/,
    );
  });

  it('when the key file is too short, then it exits 1 with CLUSTER_KEY_INVALID, quoting no key', async () => {
    const key = await writeClusterKeyFile();
    const dataDir = join(key.dir, 'data');
    const short = 'ab'.repeat(16);
    await writeFile(key.file, `${short}\n`);
    const { code, output } = await runServiceToExit({
      ONCE_NATS_SERVERS: 'nats://127.0.0.1:4222',
      ONCE_NODE_ID: 'n1',
      ONCE_DATA_DIR: dataDir,
      ONCE_CLUSTER_KEY_FILE: key.file,
    }).finally(() => rm(key.dir, { recursive: true, force: true }));
    expect(code).toBe(1);
    expect(output).toMatch(/holds 16 bytes, at least 32 are needed.*\(CLUSTER_KEY_INVALID\)/);
    expect(output).not.toContain(short);
  });
});
