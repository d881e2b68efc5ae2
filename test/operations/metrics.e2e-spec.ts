import { encodeCommandBody } from '@once/engine/internal';
import { EntryKind } from '@once/journal';
import { JournalStore } from '@once/journal/internal';
import { OnceClient } from '@once/sdk';
import { ServiceProcess, freePorts } from '@once/testing';
import { ZERO_CHECKSUM, ZERO_CLIENT_ID } from '@once/protocol/internal';

const PASSWORD = 'pw';
/** Commands of the load, sent by a few clients pipelining. */
const LOAD_COMMANDS = 600;
const LOAD_CLIENTS = 3;
/** Entries appended to the stopped node's journal so that its next replay takes a while. */
const REPLAY_ENTRIES = 300_000;

interface HttpAnswer {
  readonly status: number;
  readonly type: string;
  readonly body: string;
}

async function get(port: number, path: string): Promise<HttpAnswer> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    body: await response.text(),
  };
}

/** The sample of `name` with exactly `labels` in a Prometheus text exposition; 0 when absent. */
function sample(exposition: string, name: string, labels = ''): number {
  const prefix = labels === '' ? `${name} ` : `${name}{${labels}} `;
  const line = exposition.split('\n').find((candidate) => candidate.startsWith(prefix));
  return line === undefined ? 0 : Number(line.slice(prefix.length));
}

/** Appends `count` system deposits to the journal of a stopped node's data directory. */
async function appendDeposits(dataDir: string, account: string, count: number): Promise<void> {
  const journal = await JournalStore.open(dataDir);
  try {
    const body = encodeCommandBody({ pattern: 'ledger.deposit', data: { account, amount: 1 } });
    const draft = {
      kind: EntryKind.Command,
      client: ZERO_CLIENT_ID,
      session: 0,
      request: 0,
      userId: 0,
      requestChecksum: ZERO_CHECKSUM,
      body,
    };
    for (let done = 0; done < count; done += 10_000) {
      const chunk = Math.min(10_000, count - done);
      await Promise.all(Array.from({ length: chunk }, () => journal.append(draft)));
    }
  } finally {
    await journal.close();
  }
}

describe('given the reference service with ONCE_METRICS_PORT set', () => {
  let service: ServiceProcess;
  let metricsPort: number;

  beforeAll(async () => {
    [metricsPort] = await freePorts(1);
    service = await ServiceProcess.start({
      env: {
        ONCE_ADMIN_PASSWORD: PASSWORD,
        ONCE_METRICS_PORT: String(metricsPort),
        ONCE_SNAPSHOT_EVERY_OPS: '0',
      },
    });
  });
  afterAll(() => service.cleanup());

  it('when clients run a load of commands, then /metrics counts as many OK commits as replies received', async () => {
    // Given
    const before = (await get(metricsPort, '/metrics')).body;
    const clients = await Promise.all(
      Array.from({ length: LOAD_CLIENTS }, () =>
        OnceClient.connect({ port: service.port, username: 'admin', password: PASSWORD }),
      ),
    );
    try {
      await clients[0].command('ledger.open', { account: 'metrics' });
      // When
      let replies = 1;
      await Promise.all(
        clients.map(async (client) => {
          const share = LOAD_COMMANDS / LOAD_CLIENTS;
          const results = await Promise.all(
            Array.from({ length: share }, () =>
              client.command('ledger.deposit', { account: 'metrics', amount: 1 }),
            ),
          );
          replies += results.length;
        }),
      );
      const during = await get(metricsPort, '/metrics');

      // Then
      expect(during.status).toBe(200);
      expect(during.type).toMatch(/^text\/plain/);
      const okCommands = 'operation="command",status="OK"';
      expect(
        sample(during.body, 'once_commits_total', okCommands) -
          sample(before, 'once_commits_total', okCommands),
      ).toBe(replies);
      expect(
        sample(during.body, 'once_commits_total', 'operation="register",status="OK"') -
          sample(before, 'once_commits_total', 'operation="register",status="OK"'),
      ).toBe(LOAD_CLIENTS);
      expect(
        sample(during.body, 'once_reply_latency_seconds_count') -
          sample(before, 'once_reply_latency_seconds_count'),
      ).toBe(replies);
      expect(sample(during.body, 'once_connections')).toBe(LOAD_CLIENTS);
      expect(sample(during.body, 'once_sessions')).toBeGreaterThanOrEqual(LOAD_CLIENTS);
      expect(sample(during.body, 'once_journal_batch_entries_sum')).toBeGreaterThanOrEqual(
        replies + LOAD_CLIENTS,
      );
      expect(sample(during.body, 'once_journal_write_seconds_count')).toBe(
        sample(during.body, 'once_journal_batch_entries_count'),
      );
      expect(sample(during.body, 'once_commit_op')).toBe(
        sample(during.body, 'once_journal_last_op'),
      );
      expect(sample(during.body, 'once_ready')).toBe(1);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it('when it is up, then /health/live and /health/ready answer 200 through terminus', async () => {
    const live = await get(metricsPort, '/health/live');
    expect(live.status).toBe(200);
    expect(JSON.parse(live.body)).toMatchObject({ status: 'ok', info: { once: { status: 'up' } } });
    const ready = await get(metricsPort, '/health/ready');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({
      status: 'ok',
      info: { once: { status: 'up', phase: 'ready', journal: 'ok' } },
    });
    expect((await get(metricsPort, '/nowhere')).status).toBe(404);
  });

  it('when it restarts on a long journal, then /health/ready is 503 with the replay progress while it replays, and 200 after', async () => {
    // Given: a crash (no snapshot at stop), then many more entries to replay.
    await service.crash();
    await appendDeposits(service.dataDir, 'metrics', REPLAY_ENTRIES);

    // When
    const restarted = service.restart();
    const seen: Array<{ status: number; body: Record<string, unknown> }> = [];
    let settled = false;
    void restarted.finally(() => (settled = true)).catch(() => undefined);
    while (!settled) {
      const answer = await get(metricsPort, '/health/ready').catch(() => undefined);
      if (answer) seen.push({ status: answer.status, body: JSON.parse(answer.body) });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await restarted;

    // Then
    const replaying = seen.find(
      (answer) =>
        answer.status === 503 &&
        (answer.body as { error?: { once?: { phase?: string } } }).error?.once?.phase ===
          'replaying',
    );
    expect(replaying?.body).toMatchObject({
      status: 'error',
      error: {
        once: { status: 'down', phase: 'replaying', replay: { totalEntries: expect.any(Number) } },
      },
    });
    expect(seen.filter((answer) => answer.status !== 503 && answer.status !== 200)).toEqual([]);
    const ready = await get(metricsPort, '/health/ready');
    expect(ready.status).toBe(200);
    const metrics = (await get(metricsPort, '/metrics')).body;
    expect(sample(metrics, 'once_replay_total_entries')).toBeGreaterThanOrEqual(REPLAY_ENTRIES);
    expect(sample(metrics, 'once_replay_applied_entries')).toBe(
      sample(metrics, 'once_replay_total_entries'),
    );
    expect((await get(metricsPort, '/health/live')).status).toBe(200);
  }, 180_000);
});
