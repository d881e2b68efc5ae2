import { readFile } from 'node:fs/promises';

/** A process's storage counters from `/proc/<pid>/io` (Linux). */
export interface ProcessIo {
  /** Bytes the process caused to be written to storage, counted when pages are dirtied. */
  readonly writeBytes: number;
  /** Of those, bytes of pages dropped before reaching the disk (a file truncated or deleted). */
  readonly cancelledWriteBytes: number;
}

/**
 * The storage writes of process `pid` so far, undefined where the kernel
 * does not say (no /proc, another user's process, a kernel without task I/O
 * accounting). Counts every thread: LevelDB's background flushes and
 * compactions as well as the journal's write-ahead log.
 */
export async function readProcessIo(pid: number | undefined): Promise<ProcessIo | undefined> {
  const text = await readProcText(pid, 'io');
  if (text === undefined) return undefined;
  const field = (name: string) => {
    const match = new RegExp(`^${name}: (\\d+)$`, 'm').exec(text);
    return match ? Number(match[1]) : undefined;
  };
  const writeBytes = field('write_bytes');
  const cancelledWriteBytes = field('cancelled_write_bytes');
  if (writeBytes === undefined || cancelledWriteBytes === undefined) return undefined;
  return { writeBytes, cancelledWriteBytes };
}

/** `/proc/<pid>/<file>` as text; undefined without a pid or where it cannot be read (the process gone, no /proc). */
export async function readProcText(
  pid: number | undefined,
  file: string,
): Promise<string | undefined> {
  if (pid === undefined) return undefined;
  try {
    return await readFile(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}
