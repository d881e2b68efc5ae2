import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What LevelDB's background thread wrote, from its info log (`LOG`): the
 * disk writes a database does besides its write-ahead log.
 */
export interface LevelDbActivity {
  /** Memtable flushes: tables written from memory, and their bytes. */
  readonly flushes: number;
  readonly flushedBytes: number;
  /** Compactions that rewrote tables, and the bytes they wrote. */
  readonly compactions: number;
  readonly compactionBytes: number;
  /** Compactions that only moved a table down a level (nothing written). */
  readonly trivialMoves: number;
  /** Flushes and rewriting compactions that started inside the window given, if any. */
  readonly inWindow?: { readonly flushes: number; readonly compactions: number };
}

const STAMP = /^(\d{4})\/(\d\d)\/(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{6}) \S+ (.*)$/;
const FLUSHED = /^Level-0 table #\d+: (\d+) bytes OK$/;
const FLUSH_STARTED = /^Level-0 table #\d+: started$/;
const COMPACTED = /^Compacted .* => (\d+) bytes$/;
const COMPACTING = /^Compacting \d+@\d+ \+ \d+@\d+ files$/;
const MOVED = /^Moved #\d+ to level-\d+/;

/**
 * Reads `<leveldb>/LOG` (the info log since the database's last open) and
 * sums its flush and compaction lines. LevelDB stamps them in local time;
 * `window` is in Unix-epoch ms. A flush of a memtable that overlaps no table
 * goes straight to level 2 and is never compacted, so `compactionBytes`
 * against `flushedBytes` is the database's write amplification.
 */
export async function readLevelDbActivity(
  leveldb: string,
  window?: { readonly startEpochMs: number; readonly endEpochMs: number },
): Promise<LevelDbActivity> {
  const text = await readFile(join(leveldb, 'LOG'), 'utf8');
  let flushes = 0;
  let flushedBytes = 0;
  let compactions = 0;
  let compactionBytes = 0;
  let trivialMoves = 0;
  let windowFlushes = 0;
  let windowCompactions = 0;
  for (const line of text.split('\n')) {
    const stamped = STAMP.exec(line);
    if (!stamped) continue;
    const message = stamped[8];
    const [year, month, day, hour, minute, second] = stamped.slice(1, 7).map(Number);
    const epochMs =
      new Date(year, month - 1, day, hour, minute, second).getTime() + Number(stamped[7]) / 1000;
    const inWindow =
      window !== undefined && epochMs >= window.startEpochMs && epochMs < window.endEpochMs;
    let match: RegExpExecArray | null;
    if ((match = FLUSHED.exec(message))) {
      flushes++;
      flushedBytes += Number(match[1]);
    } else if ((match = COMPACTED.exec(message))) {
      compactions++;
      compactionBytes += Number(match[1]);
    } else if (MOVED.test(message)) {
      trivialMoves++;
    } else if (inWindow && FLUSH_STARTED.test(message)) {
      windowFlushes++;
    } else if (inWindow && COMPACTING.test(message)) {
      windowCompactions++;
    }
  }
  return {
    flushes,
    flushedBytes,
    compactions,
    compactionBytes,
    trivialMoves,
    ...(window && { inWindow: { flushes: windowFlushes, compactions: windowCompactions } }),
  };
}
