import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** One reading of the data directories and the journal. */
export interface DiskSample {
  /** Seconds since the load started. */
  readonly atS: number;
  /** The data directories' files: journal, snapshots, LevelDB's log and tables. */
  readonly bytes: number;
  /**
   * Entries the journal held at its newest snapshot (its op less the
   * journal's first op, plus one), from the service's log; undefined before
   * the first snapshot or when the log is not read (a cluster).
   */
  readonly journalEntries: number | undefined;
  /** Size of the newest snapshot (the application's state), from the service's log. */
  readonly snapshotBytes: number | undefined;
}

/** The journal's length and the data directories' size over a run, and whether the journal stayed bounded. */
export interface DiskUsage {
  readonly samples: readonly DiskSample[];
  /** Most entries the journal held in the first and in the second half of the load. */
  readonly firstHalfMaxEntries: number | undefined;
  readonly secondHalfMaxEntries: number | undefined;
  /** Largest data directory size in the first and in the second half. */
  readonly firstHalfMaxBytes: number;
  readonly secondHalfMaxBytes: number;
  /**
   * The journal's peak length in the second half of the load is at most
   * {@link GROWTH_ALLOWED} times the first half's: a journal that keeps
   * every entry grows with the load (about twice as long by the end under a
   * steady one), a retained one plateaus once its first compactions ran.
   * The directory's bytes are not judged: they include the snapshots, i.e.
   * the application's state, which may grow with the history by itself
   * (the ledger keeps every transfer's reference). Undefined when the
   * journal was not observed.
   */
  readonly bounded: boolean | undefined;
}

/** Peak growth from the first half of the load to the second that still counts as flat. */
export const GROWTH_ALLOWED = 1.3;

/** What the service's log says of its journal: the newest snapshot, and where the journal starts. */
export function journalFromLog(logs: string): Pick<DiskSample, 'journalEntries' | 'snapshotBytes'> {
  let snapshot: RegExpExecArray | undefined;
  for (const match of logs.matchAll(/snapshot at op (\d+) written \((\d+) bytes/g))
    snapshot = match;
  let firstOp = 1;
  for (const match of logs.matchAll(/(?:journal from op|it starts at op) (\d+)/g)) {
    firstOp = Number(match[1]);
  }
  if (!snapshot) return { journalEntries: undefined, snapshotBytes: undefined };
  return {
    journalEntries: Number(snapshot[1]) - firstOp + 1,
    snapshotBytes: Number(snapshot[2]),
  };
}

/** Bytes of the files under `dir` (0 when it is gone); a file removed while it is read counts 0. */
export async function directoryBytes(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(path);
    else
      total += await stat(path).then(
        (info) => info.size,
        () => 0,
      );
  }
  return total;
}

/**
 * Reads the size of `dirs` every `everyMs` until `stop()`, which resolves
 * with the readings and the verdict. Samples are taken while the service is
 * killed and restarted too: the size on disk is what an operator's disk sees.
 */
export class DiskSampler {
  private readonly samples: DiskSample[] = [];
  private readonly timer: NodeJS.Timeout;
  private reading: Promise<void> = Promise.resolve();
  private readonly startedMs = performance.now();

  /**
   * @param dirs the data directories whose files are summed
   * @param everyMs how often
   * @param logs the service's log so far, for the journal's length (absent: not observed)
   */
  constructor(
    private readonly dirs: readonly string[],
    everyMs: number,
    private readonly logs?: () => string,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  /** The latest reading, for progress lines. */
  get latest(): DiskSample | undefined {
    return this.samples.at(-1);
  }

  private sample(): void {
    this.reading = this.reading.then(async () => {
      const atS = Math.round((performance.now() - this.startedMs) / 100) / 10;
      let bytes = 0;
      for (const dir of this.dirs) bytes += await directoryBytes(dir);
      const journal = this.logs
        ? journalFromLog(this.logs())
        : { journalEntries: undefined, snapshotBytes: undefined };
      this.samples.push({ atS, bytes, ...journal });
    });
  }

  async stop(): Promise<DiskUsage> {
    clearInterval(this.timer);
    this.sample();
    await this.reading;
    return diskUsage(this.samples);
  }
}

/** The verdict on `samples` (see {@link DiskUsage.bounded}). */
export function diskUsage(samples: readonly DiskSample[]): DiskUsage {
  const endS = samples.at(-1)?.atS ?? 0;
  const first = samples.filter((sample) => sample.atS <= endS / 2);
  const second = samples.filter((sample) => sample.atS > endS / 2);
  const peak = (values: ReadonlyArray<number | undefined>) => {
    const known = values.filter((value): value is number => value !== undefined);
    return known.length === 0 ? undefined : Math.max(...known);
  };
  const firstHalfMaxEntries = peak(first.map((sample) => sample.journalEntries));
  const secondHalfMaxEntries = peak(second.map((sample) => sample.journalEntries));
  return {
    samples,
    firstHalfMaxEntries,
    secondHalfMaxEntries,
    firstHalfMaxBytes: peak(first.map((sample) => sample.bytes)) ?? 0,
    secondHalfMaxBytes: peak(second.map((sample) => sample.bytes)) ?? 0,
    bounded:
      firstHalfMaxEntries === undefined || secondHalfMaxEntries === undefined
        ? undefined
        : secondHalfMaxEntries <= firstHalfMaxEntries * GROWTH_ALLOWED,
  };
}
