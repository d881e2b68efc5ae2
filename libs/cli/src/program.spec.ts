import { encodeCommandBody } from '@once/engine/internal';
import { EntryKind } from '@once/journal';
import { JournalStore } from '@once/journal/internal';
import { ZERO_CHECKSUM } from '@once/protocol/internal';
import { randomClientId } from '@once/protocol';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli } from './program';

/** Runs the CLI in-process, capturing what it prints. */
async function once(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runCli(['node', 'once', ...args], { stdout, stderr, env: {} });
  return { code, stdout: out, stderr: err };
}

describe('the once CLI on a journal of a stopped data directory', () => {
  let root: string;
  let dataDir: string;
  const client = randomClientId();
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'once-cli-'));
    dataDir = join(root, 'data');
    const journal = await JournalStore.open(dataDir);
    for (let request = 1; request <= 5; request++) {
      await journal.append({
        kind: EntryKind.Command,
        client,
        session: 1,
        request,
        userId: 2,
        requestChecksum: ZERO_CHECKSUM,
        body: encodeCommandBody({
          pattern: 'users.changePassword',
          data: { password: `pw-${request}` },
        }),
      });
    }
    await journal.close();
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('when `journal tail -n 2 --json` runs, then it prints the last two entries decoded and no password', async () => {
    const { code, stdout } = await once('journal', 'tail', '-n', '2', '-d', dataDir, '--json');
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as {
      lastOp: number;
      entries: Array<Record<string, unknown>>;
    };
    expect(result.lastOp).toBe(5);
    expect(result.entries.map((entry) => entry.request)).toEqual([4, 5]);
    expect(result.entries[0]).toMatchObject({
      kind: 'COMMAND',
      client,
      pattern: 'users.changePassword',
    });
    expect(stdout).not.toMatch(/pw-\d/);
  });

  it('when `journal show` asks for an op beyond the end, then it fails with NO_SUCH_OP', async () => {
    const { code, stdout } = await once('--json', 'journal', 'show', '6', '-d', dataDir);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toEqual({
      error: { code: 'NO_SUCH_OP', message: expect.any(String) },
    });
  });

  it('when a node holds the directory, then the command fails saying to stop the node first', async () => {
    const held = await JournalStore.open(dataDir);
    try {
      const { code, stderr } = await once('journal', 'tail', '-d', dataDir);
      expect(code).toBe(1);
      expect(stderr).toMatch(/in use: a running node holds its LevelDB lock\. Stop the node first/);
    } finally {
      await held.close();
    }
  });

  it('when the directory does not exist, then it says so and creates nothing', async () => {
    const missing = join(root, 'missing');
    const { code, stdout } = await once('journal', 'tail', '-d', missing, '--json');
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ error: { code: 'NO_DATA_DIR' } });
    expect(existsSync(missing)).toBe(false);
  });

  it('when an option is invalid or --follow is asked of a directory, then it exits 2 (usage)', async () => {
    expect((await once('journal', 'tail', '-n', 'zero', '-d', dataDir)).code).toBe(2);
    const follow = await once('journal', 'tail', '--follow', '-d', dataDir, '--json');
    expect(follow.code).toBe(2);
    expect(JSON.parse(follow.stdout)).toMatchObject({
      error: { code: 'FOLLOW_NEEDS_METRICS_URL' },
    });
  });
});
