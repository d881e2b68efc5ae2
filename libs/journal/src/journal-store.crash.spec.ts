import { type ChildProcess, spawn } from 'node:child_process';
import { typescriptRegisterFile } from '@once/testing';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type JournalEntry } from './journal-entry';
import { JournalStore } from './journal-store';

/**
 * Runs the real JournalStore (its TypeScript sources) in a child process,
 * through the harness's TypeScript require hook (transpile only, `@once/*`
 * aliases mapped like the jest config does).
 */
const CHILD_RUNNER = String.raw`
'use strict';
const path = require('node:path');
const root = process.env.ONCE_ROOT;

const { EntryKind } = require(path.join(root, 'libs/journal/src'));
const { JournalStore } = require(path.join(root, 'libs/journal/src/internal'));
const [mode, dataDir] = process.argv.slice(2);

async function appendForever() {
  const store = await JournalStore.open(dataDir);
  process.stdout.write('open ' + store.lastOp + '\n');
  store.onDurable((entries) => {
    process.stdout.write('durable ' + entries[entries.length - 1].op + '\n');
  });
  let inFlight = 0;
  let request = 0;
  const pump = () => {
    while (inFlight < 300) {
      inFlight++;
      request++;
      store
        .append({
          kind: EntryKind.Command,
          client: 'abcdef0123456789abcdef0123456789',
          session: 1,
          request,
          userId: 1,
          requestChecksum: Buffer.alloc(16, 1),
          body: Buffer.alloc(64 + (request % 200), request & 0xff),
        })
        .then(
          () => inFlight--,
          (error) => {
            console.error(error);
            process.exit(1);
          },
        );
    }
    setImmediate(pump);
  };
  pump();
}

async function tryOpen() {
  try {
    const store = await JournalStore.open(dataDir);
    await store.close();
    process.stdout.write(JSON.stringify({ opened: true }) + '\n');
  } catch (error) {
    process.stdout.write(JSON.stringify({ code: error.code, message: error.message }) + '\n');
  }
}

(mode === 'append-forever' ? appendForever() : tryOpen()).catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

const REPO_ROOT = resolve(__dirname, '../../..');

describe('JournalStore across processes', () => {
  let workDir: string;
  let dataDir: string;
  let runner: string;
  const children: ChildProcess[] = [];

  function startChild(mode: 'append-forever' | 'try-open'): ChildProcess {
    const child = spawn(process.execPath, ['-r', typescriptRegisterFile(), runner, mode, dataDir], {
      env: {
        ...process.env,
        ONCE_ROOT: REPO_ROOT,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    return child;
  }

  /** Calls `onLine` for each stdout line; resolves with the exit signal/code. */
  function watch(
    child: ChildProcess,
    onLine: (line: string) => void,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
    let pending = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) onLine(line);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    return new Promise((resolveExit) =>
      child.on('exit', (code, signal) => resolveExit({ code, signal, stderr })),
    );
  }

  beforeAll(async () => {
    workDir = await fs.mkdtemp(join(tmpdir(), 'once-journal-crash-'));
    runner = join(workDir, 'child-runner.js');
    await fs.writeFile(runner, CHILD_RUNNER);
  });

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(join(workDir, 'data-'));
  });

  afterEach(() => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  afterAll(async () => {
    await fs.rm(workDir, { recursive: true, force: true });
  });

  it('keeps every op reported durable when the writer is SIGKILLed mid-stream', async () => {
    let expectedStart = 0;
    for (let round = 1; round <= 2; round++) {
      const child = startChild('append-forever');
      let openedAt: number | undefined;
      let lastDurable = 0;
      const target = expectedStart + 3000;
      const exited = watch(child, (line) => {
        const [word, value] = line.split(' ');
        if (word === 'open') openedAt = Number(value);
        if (word === 'durable') {
          const op = Number(value);
          expect(op).toBeGreaterThan(lastDurable);
          lastDurable = op;
          if (op >= target) child.kill('SIGKILL');
        }
      });
      const { signal, stderr } = await exited;
      expect(stderr).toBe('');
      expect(signal).toBe('SIGKILL');
      expect(openedAt).toBe(expectedStart);
      expect(lastDurable).toBeGreaterThanOrEqual(target);

      const store = await JournalStore.open(dataDir);
      try {
        expect(store.lastOp).toBeGreaterThanOrEqual(lastDurable);
        let count = 0;
        let previous: JournalEntry | undefined;
        // readBatches verifies every checksum and the contiguity of the ops.
        for await (const batch of store.readBatches(1)) {
          for (const entry of batch) {
            count++;
            if (previous !== undefined) {
              expect(entry.timestamp).toBeGreaterThanOrEqual(previous.timestamp);
            }
            previous = entry;
          }
        }
        expect(count).toBe(store.lastOp);
        expect(previous?.op).toBe(store.lastOp);
        const next = await store.append({ ...previous!, request: previous!.request + 1 });
        expect(next.op).toBe(count + 1);
        expectedStart = next.op;
      } finally {
        await store.close();
      }
    }
  }, 15_000);

  it('refuses to open a directory another process holds', async () => {
    const store = await JournalStore.open(dataDir);
    try {
      const child = startChild('try-open');
      const lines: string[] = [];
      const { code, stderr } = await watch(child, (line) => lines.push(line));
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(JSON.parse(lines[0])).toEqual({
        code: 'DATA_DIR_IN_USE',
        message: `data directory ${dataDir} is in use by another process (LevelDB lock held)`,
      });
    } finally {
      await store.close();
    }
  }, 10_000);
});
