import { readFileSync, readdirSync } from 'node:fs';

/** Environment variable whose value names one jest run (set by the global setup). */
export const TEST_RUN_VARIABLE = 'ONCE_TEST_RUN';

/** A process of this machine that carries a run's tag. */
export interface TaggedProcess {
  readonly pid: number;
  readonly command: string;
}

/**
 * The processes whose initial environment holds `TEST_RUN_VARIABLE=runId`,
 * other than this one. Reads `/proc`; where there is none (not Linux), none
 * are found.
 */
export function findTaggedProcesses(runId: string): TaggedProcess[] {
  const needle = `${TEST_RUN_VARIABLE}=${runId}`;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: TaggedProcess[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (!environment.includes(needle)) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push({ pid, command });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}
