import { type ChildProcess, spawn } from 'node:child_process';
import { typescriptRegisterFile } from '@once/testing';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { JournalStore } from './journal-store';

/**
 * A compaction killed by SIGKILL: the real JournalStore in a child process
 * writes 3000 entries with snapshots at ops 1000, 2000 and 3000, keeps
 * appending, and compacts (retaining 2 snapshots) in batches of 3 keys;
 * the parent kills it in the middle of the compaction. The directory must
 * open, read contiguously from its recorded first op to its end (every op
 * reported durable included), keep a snapshot that covers its start, and
 * let the next compaction finish the job.
 */
const CHILD_RUNNER = String.raw`
'use strict';
const path = require('node:path');
const { EntryKind } = require(path.join(process.env.ONCE_ROOT, 'libs/journal/src'));
const { JournalStore } = require(path.join(process.env.ONCE_ROOT, 'libs/journal/src/internal'));
const dataDir = process.argv[2];
let batches = 0;
const draft = (request) => ({
  kind: EntryKind.Command,
  client: 'abcdef0123456789abcdef0123456789',
  session: 1,
  request,
  userId: 1,
  requestChecksum: Buffer.alloc(16, 1),
  body: Buffer.alloc(64, request & 0xff),
});
async function main() {
  const store = await JournalStore.open(dataDir, {
    retainSnapshots: 2,
    compactBatchKeys: 3,
    beforeCompactBatch: async () => {
      process.stdout.write('batch ' + ++batches + '\n');
      await new Promise((resolve) => setTimeout(resolve, 1));
    },
  });
  store.onDurable((entries) => process.stdout.write('durable ' + entries[entries.length - 1].op + '\n'));
  for (const op of [1000, 2000, 3000]) {
    await Promise.all(Array.from({ length: op - store.lastOp }, () => store.append(draft(store.lastOp + 1))));
    await store.saveSnapshot(op, Buffer.from('state@' + op));
  }
  const pump = () => {
    for (let i = 0; i < 20; i++) store.append(draft(store.lastOp + 1));
    setTimeout(pump, 2);
  };
  pump();
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

const REPO_ROOT = resolve(__dirname, '../../..');
/**
 * The first compaction (after the snapshot at 2000) deletes ops 1..999 in
 * 333 batches; the second (after 3000) deletes 1000..1999: kill in its 40th.
 */
const KILL_AT_BATCH = 333 + 40;

describe('JournalStore compaction killed by SIGKILL', () => {
  let workDir: string;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    workDir = await fs.mkdtemp(join(tmpdir(), 'once-compaction-crash-'));
    await fs.writeFile(join(workDir, 'child-runner.js'), CHILD_RUNNER);
  });
  afterAll(async () => {
    if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await fs.rm(workDir, { recursive: true, force: true });
  });

  it('given the second compaction in its 40th batch, when the process is SIGKILLed, then the directory opens, reads contiguously from its recorded start and the next compaction completes', async () => {
    const dataDir = join(workDir, 'data');
    child = spawn(
      process.execPath,
      ['-r', typescriptRegisterFile(), join(workDir, 'child-runner.js'), dataDir],
      { env: { ...process.env, ONCE_ROOT: REPO_ROOT }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let lastDurable = 0;
    let stderr = '';
    let pending = '';
    const running = child;
    const exited = new Promise<NodeJS.Signals | null>((done) =>
      running.on('exit', (_code, signal) => done(signal)),
    );
    running.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    running.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const [word, value] = line.split(' ');
        if (word === 'durable') lastDurable = Math.max(lastDurable, Number(value));
        if (word === 'batch' && Number(value) === KILL_AT_BATCH) running.kill('SIGKILL');
      }
    });
    expect(await exited).toBe('SIGKILL');
    expect(stderr).toBe('');

    // Opened without retention, so that only the explicit compaction below finishes the job.
    const store = await JournalStore.open(dataDir);
    try {
      expect(store.firstOp).toBe(2000);
      expect(store.lastOp).toBeGreaterThanOrEqual(lastDurable);
      let expected = 2000;
      for await (const batch of store.readBatches(2000)) {
        for (const entry of batch) expect(entry.op).toBe(expected++);
      }
      expect(expected - 1).toBe(store.lastOp);
      const snapshots = await store.listSnapshots();
      expect(snapshots.map((record) => record.op)).toEqual([3000, 2000]);
      expect(snapshots.every((record) => 'payload' in record)).toBe(true);

      // The second compaction had deleted at least its first 39 batches of 1000..1999.
      const result = await store.compact({ retainSnapshots: 2 });
      expect(result.deletedEntries).toBeGreaterThan(0);
      expect(result.deletedEntries).toBeLessThanOrEqual(1000 - 3 * 39);
      expect(store.firstOp).toBe(2000);
      expect(await store.compact({ retainSnapshots: 2 })).toMatchObject({
        firstOp: 2000,
        deletedEntries: 0,
      });
    } finally {
      await store.close();
    }
  }, 60_000);
});
