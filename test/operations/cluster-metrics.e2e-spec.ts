import { OnceClient } from '@once/sdk';
import { OnceCluster, type ServiceProcess, eventually } from '@once/testing';

jest.setTimeout(120_000);

const PASSWORD = 'pw';
const COMMANDS = 50;

/** The metrics listener a node logged (ONCE_METRICS_PORT=0 picks a free port per start). */
function metricsUrlOf(node: ServiceProcess): string {
  const urls = [...node.logs.matchAll(/metrics and health served at (http:\/\/\S+)/g)];
  const url = urls.at(-1)?.[1];
  if (url === undefined) throw new Error(`the node logged no metrics listener:\n${node.logs}`);
  return url;
}

async function scrape(node: ServiceProcess): Promise<string> {
  const response = await fetch(`${metricsUrlOf(node)}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** The sample of `name{labels}` (exactly), or undefined when the exposition has none. */
function sample(exposition: string, name: string, labels = ''): number | undefined {
  const prefix = labels === '' ? `${name} ` : `${name}{${labels}} `;
  const line = exposition.split('\n').find((candidate) => candidate.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

async function readyStatus(node: ServiceProcess): Promise<number> {
  return (await fetch(`${metricsUrlOf(node)}/health/ready`)).status;
}

describe('given one NATS server and two once nodes, each with its metrics listener', () => {
  let cluster: OnceCluster;
  let leader: number;
  let follower: number;

  beforeAll(async () => {
    cluster = await OnceCluster.start({
      natsServers: 1,
      nodes: 2,
      env: { ONCE_ADMIN_PASSWORD: PASSWORD, ONCE_METRICS_PORT: '0' },
    });
    leader = await cluster.leader();
    follower = 1 - leader;
  });
  afterAll(() => cluster?.cleanup());

  it('when each node is scraped, then each exports its own role, knows the leader, and is ready', async () => {
    const leading = await scrape(cluster.nodes[leader]);
    const following = await scrape(cluster.nodes[follower]);

    expect(sample(leading, 'once_cluster_role', 'role="leader"')).toBe(1);
    expect(sample(leading, 'once_cluster_role', 'role="follower"')).toBe(0);
    expect(sample(following, 'once_cluster_role', 'role="follower"')).toBe(1);
    expect(sample(following, 'once_cluster_role', 'role="leader"')).toBe(0);
    expect(sample(leading, 'once_cluster_leader_known')).toBe(1);
    expect(sample(following, 'once_cluster_leader_known')).toBe(1);
    expect(await readyStatus(cluster.nodes[leader])).toBe(200);
    expect(await readyStatus(cluster.nodes[follower])).toBe(200);
  });

  it('when the leader commits a load, then the follower applies it all and its apply lag returns to 0', async () => {
    // Given
    const client = await OnceClient.connect({
      port: cluster.nodes[leader].port,
      username: 'admin',
      password: PASSWORD,
    });
    try {
      await client.command('ledger.open', { account: 'cluster-metrics' });
      // When
      await Promise.all(
        Array.from({ length: COMMANDS }, () =>
          client.command('ledger.deposit', { account: 'cluster-metrics', amount: 1 }),
        ),
      );
    } finally {
      await client.close();
    }
    const leaderOp = sample(await scrape(cluster.nodes[leader]), 'once_commit_op')!;

    // Then
    await eventually(
      async () => {
        const following = await scrape(cluster.nodes[follower]);
        return (
          sample(following, 'once_commit_op')! >= leaderOp &&
          sample(following, 'once_cluster_apply_lag_ops') === 0
        );
      },
      `the follower applied op ${leaderOp} with no lag`,
      30_000,
    );
    const leading = await scrape(cluster.nodes[leader]);
    expect(
      sample(leading, 'once_commits_total', 'operation="command",status="OK"'),
    ).toBeGreaterThanOrEqual(COMMANDS + 1);
  });

  it('when the leader is killed, then the follower takes over and its metrics say it leads', async () => {
    // When
    await cluster.kill(leader);

    // Then
    await eventually(
      async () => {
        const exposition = await scrape(cluster.nodes[follower]);
        return sample(exposition, 'once_cluster_role', 'role="leader"') === 1;
      },
      'the former follower exports role="leader"',
      60_000,
    );
    expect(await readyStatus(cluster.nodes[follower])).toBe(200);
  });
});
