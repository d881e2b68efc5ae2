import {
  closeSync,
  type FSWatcher,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  watch,
} from 'node:fs';
import { join } from 'node:path';
import { parseLogFile, type WalBatch } from './leveldb-log-parser';

const LOG_FILE = /^(\d+)\.log$/;

/** What a {@link WalRecorder} saw of a run. */
export interface WalRecording {
  /** Every WriteBatch of every log file, in sequence order. */
  readonly batches: readonly WalBatch[];
  readonly logFiles: number;
  /** Log files that were gone before they could be opened. */
  readonly missedLogFiles: number;
  /** Places where a batch's sequence does not follow the previous one: unseen batches. */
  readonly sequenceGaps: number;
}

/**
 * Records every synced batch a LevelDB database writes, from outside the
 * process that writes them: how the bench learns the service's real group
 * commit sizes without any counter in the service.
 *
 * Every `db.batch()` is exactly one record of LevelDB's write-ahead log, and
 * the journal has at most one batch in flight, so the log holds one record per
 * group commit with its entry count. LevelDB deletes a log once its memtable is
 * flushed, so the recorder watches the directory (inotify) and opens each new
 * log at once: an open descriptor keeps a deleted file readable. Nothing is
 * read until {@link finish}, after the run, so the recorder costs the server
 * nothing but the open calls. LevelDB sequence numbers are contiguous across
 * batches, which lets {@link finish} prove that no batch was missed.
 */
export class WalRecorder {
  private readonly held = new Map<number, number>();
  private readonly missed = new Set<number>();
  private readonly watcher: FSWatcher;

  private constructor(private readonly dir: string) {
    this.watcher = watch(dir, () => this.openNewLogs());
    this.openNewLogs();
  }

  /** Starts watching `leveldbDir` (created if missing), before the database is opened. */
  static start(leveldbDir: string): WalRecorder {
    mkdirSync(leveldbDir, { recursive: true, mode: 0o700 });
    return new WalRecorder(leveldbDir);
  }

  /** Stops watching, reads every log seen, closes them. Call once the writer is dead. */
  finish(): WalRecording {
    this.watcher.close();
    this.openNewLogs();
    const batches: WalBatch[] = [];
    for (const [, fd] of [...this.held].sort(([a], [b]) => a - b)) {
      batches.push(...parseLogFile(readWhole(fd)));
      closeSync(fd);
    }
    const logFiles = this.held.size;
    this.held.clear();
    batches.sort((a, b) => a.sequence - b.sequence);
    let sequenceGaps = 0;
    for (let i = 1; i < batches.length; i++) {
      if (batches[i].sequence !== batches[i - 1].sequence + batches[i - 1].count) sequenceGaps++;
    }
    return { batches, logFiles, missedLogFiles: this.missed.size, sequenceGaps };
  }

  private openNewLogs(): void {
    for (const name of readdirSync(this.dir)) {
      const match = LOG_FILE.exec(name);
      if (!match) continue;
      const number = Number(match[1]);
      if (this.held.has(number) || this.missed.has(number)) continue;
      try {
        this.held.set(number, openSync(join(this.dir, name), 'r'));
      } catch {
        this.missed.add(number);
      }
    }
  }
}

function readWhole(fd: number): Buffer {
  const bytes = Buffer.allocUnsafe(fstatSync(fd).size);
  let offset = 0;
  while (offset < bytes.length) {
    const read = readSync(fd, bytes, offset, bytes.length - offset, offset);
    if (read === 0) break;
    offset += read;
  }
  return bytes.subarray(0, offset);
}
