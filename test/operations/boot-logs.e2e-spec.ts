import { ServiceProcess } from '@once/testing';
import { execFile } from 'node:child_process';
import { join } from 'node:path';

/**
 * The service's log tells a new user what each phase of its life did: the
 * data directory opened, the snapshot restored (or none), the replay, the
 * entries journaled at boot and why, ready, listening (after ready), and a
 * last line with the op and exit code. With ONCE_LOG_FORMAT=json the same
 * events come one JSON object a line, under stable `event` names.
 */

const PASSWORD = 'boot-logs-secret';
const ROOT = join(__dirname, '../..');
const BIN = join(ROOT, 'libs/cli/dist/main.js');

interface JournalTail {
  readonly lastOp: number;
  readonly entries: ReadonlyArray<{
    op: number;
    kind: string;
    pattern: string | null;
    body: unknown;
  }>;
}

/** The last `count` entries of the stopped `dataDir`, as `once journal tail --json` prints them. */
function journalTail(dataDir: string, count: number): Promise<JournalTail> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, 'journal', 'tail', '-n', String(count), '-d', dataDir, '--json'],
      { cwd: ROOT, timeout: 30_000 },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`${error.message}\n${stdout}${stderr}`))
          : resolve(JSON.parse(stdout) as JournalTail),
    );
  });
}

/** Asserts `patterns` match lines of `text` in this order; returns the matched lines. */
function expectInOrder(text: string, patterns: readonly RegExp[]): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  let from = 0;
  for (const pattern of patterns) {
    const index = lines.findIndex((line, i) => i >= from && pattern.test(line));
    if (index < 0) {
      throw new Error(`no line matching ${pattern} after line ${from} in:\n${text}`);
    }
    found.push(lines[index]);
    from = index + 1;
  }
  return found;
}

/** The JSON log lines of `text` (each must parse), in order. */
function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
}

/** The last non-empty line of `text`. */
function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}

describe('given a new data directory', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await ServiceProcess.start({
      // Without checkpoints: the stop writes the one snapshot of the run.
      env: { ONCE_ADMIN_PASSWORD: PASSWORD, ONCE_CHECKPOINT_INTERVAL_MS: '0' },
    });
  });
  afterAll(() => service.cleanup());

  it('when the service starts, then each boot phase has its line, the boot entries are named, and listening comes after ready', () => {
    expectInOrder(service.logs, [
      /data directory .* opened at op 0; \d+ commands, \d+ states/,
      /bound 127\.0\.0\.1:\d+: requests get NOT_READY until the node is ready/,
      /no snapshot \(new data directory\)/,
      /replay applied 0 entries \(nothing after op 0\)/,
      /boot: journaled MANIFEST at op 1 \(first manifest: states groups v1, ledger v1, streams v1, users v1; \d+ commands\)/,
      /boot: journaled BOOT at op 2 \(new data directory; limits clientsMax 8192, ring 8, sessionTtlMs 0, httpKeyRetentionMs 86400000, httpKeysMax 1000000\)/,
      /genesis: journaled users\.create \(user admin\) at op 3/,
      /ready at op 3$/,
      new RegExp(`listening on 127\\.0\\.0\\.1:${service.port}$`),
    ]);
    expect(service.logs).not.toContain(PASSWORD);
  });

  it('when it is stopped gracefully, then its last line says the op it stopped at and exit code 0', async () => {
    const mark = service.logs.length;
    expect(await service.stop()).toBe(0);
    const logs = service.logs.slice(mark);
    // A graceful stop journals the checksum of the genesis command's reply (REPLY_CHECK at op 4).
    expectInOrder(logs, [
      /SIGTERM: stopping at op 3 /,
      /snapshot at op 4 written/,
      /stopped at op 4 \(exit code 0\)$/,
    ]);
    expect(lastLine(logs)).toMatch(/stopped at op 4 \(exit code 0\)$/);
    const tail = await journalTail(service.dataDir, 2);
    expect(tail.lastOp).toBe(4);
    expect(tail.entries).toMatchObject([
      { op: 3, kind: 'COMMAND', pattern: 'users.create' },
      { op: 4, kind: 'REPLY_CHECK', pattern: null, body: { replies: [{ op: 3 }] } },
    ]);
  });

  it('when it restarts with JSON logs and other limits, then the same phases come as JSON events with their figures', async () => {
    const mark = service.logs.length;
    await service.restart({ ONCE_LOG_FORMAT: 'json', ONCE_CLIENTS_MAX: '100' });
    expect(await service.stop()).toBe(0);
    const events = jsonLines(service.logs.slice(mark));
    const once = events.filter((line) => typeof line.event === 'string');
    expect(once.map((line) => line.event)).toEqual([
      'opened',
      'bound',
      'snapshot-restored',
      'replay-done',
      'boot-entry',
      'ready',
      'listening',
      'stopping',
      'snapshot-written',
      'stopped',
    ]);
    const byEvent = new Map(once.map((line) => [line.event, line]));
    expect(byEvent.get('opened')).toMatchObject({ op: 4, journalFirstOp: 1, context: 'Once' });
    expect(byEvent.get('snapshot-restored')).toMatchObject({ snapshotOp: 4 });
    expect(byEvent.get('replay-done')).toMatchObject({ appliedEntries: 0, snapshotOp: 4 });
    expect(byEvent.get('boot-entry')).toMatchObject({
      op: 5,
      clientsMax: 100,
      message: expect.stringMatching(
        /^boot: journaled BOOT at op 5 \(limits changed from clientsMax 8192/,
      ),
    });
    expect(byEvent.get('ready')).toMatchObject({ op: 5, message: 'ready at op 5', level: 'log' });
    expect(byEvent.get('listening')).toMatchObject({ port: service.port, host: '127.0.0.1' });
    // No command ran since the last REPLY_CHECK: this stop journals nothing.
    expect(byEvent.get('stopped')).toMatchObject({ op: 5, exitCode: 0 });
    expect(events.at(-1)).toMatchObject({ event: 'stopped' });
  });
});

describe('given a data directory whose node was killed before any snapshot', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await ServiceProcess.start({
      // Without checkpoints: the kill leaves no snapshot, and the boot replays from op 1.
      env: { ONCE_ADMIN_PASSWORD: PASSWORD, ONCE_CHECKPOINT_INTERVAL_MS: '0' },
    });
    await service.crash();
  });
  afterAll(() => service.cleanup());

  it('when the service starts on it, then the replay line says how many entries, which ops, how long and how fast, and nothing is journaled at boot', async () => {
    const mark = service.logs.length;
    await service.restart();
    const logs = service.logs.slice(mark);
    expectInOrder(logs, [
      /opened at op 3;/,
      /no snapshot: replaying the journal from op 1/,
      /replay applied 3 entries \(ops 1\.\.3\) in \d+ ms at \d+ entries\/s/,
      /ready at op 3$/,
      /listening on /,
    ]);
    expect(logs).not.toMatch(/journaled (BOOT|MANIFEST)|genesis:/);
  });
});

describe('given a service started without an admin password (the default admin, on loopback)', () => {
  const WARNING = /user admin was created with the default password "admin"/;
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await ServiceProcess.start({});
  });
  afterAll(() => service.cleanup());

  it('when its data directory is new, then the warning comes with the genesis that creates the user', () => {
    const [genesis, warning] = expectInOrder(service.logs, [
      /genesis: journaled users\.create \(user admin\) at op 3/,
      WARNING,
    ]);
    expect(genesis).toBeDefined();
    expect(warning).toMatch(/ONCE_ADMIN_PASSWORD/);
    expect(service.logs.match(new RegExp(WARNING.source, 'g'))).toHaveLength(1);
  });

  it('when it restarts on the existing data directory, still without a password, then nothing warns of a user it does not create', async () => {
    const mark = service.logs.length;
    await service.restart();
    const logs = service.logs.slice(mark);
    expectInOrder(logs, [/ready at op \d+$/]);
    expect(logs).not.toMatch(WARNING);
    expect(logs).not.toMatch(/ONCE_ADMIN_PASSWORD/);
  });
});
