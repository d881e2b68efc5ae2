import { type JournalStore } from '@once/journal/internal';
import { JournalCorruptionError } from '@once/journal';
import { withStoppedJournal } from './stopped-data-dir';

/**
 * What `truncate-corrupt-tail` found and did; also its `--json` shape.
 * `corruptOp` null: the journal is intact and nothing was touched.
 */
export interface CorruptTailReport {
  /** The journal's last op when the command started. */
  readonly lastOp: number;
  /** The first corrupt or missing op; null when the journal is intact. */
  readonly corruptOp: number | null;
  /** What is wrong with it. */
  readonly reason: string | null;
  /** Ops from `corruptOp` to `lastOp`: what `--yes` drops. */
  readonly tailOps: number;
  /** Entries actually dropped (0 without `--yes`). */
  readonly dropped: number;
  /** The journal's last op when the command ended. */
  readonly lastOpAfter: number;
}

/**
 * Reads the whole journal, checking every entry, and returns the first
 * corrupt or missing op (undefined when intact). `onProgress` sees the ops read.
 */
export async function findCorruptOp(
  journal: JournalStore,
  onProgress?: (readOps: number) => void,
): Promise<JournalCorruptionError | undefined> {
  if (journal.lastOp === 0) return undefined;
  let read = 0;
  try {
    // A compacted journal starts after op 1 (see ONCE_JOURNAL_RETAIN).
    for await (const batch of journal.readBatches(journal.firstOp)) {
      read += batch.length;
      onProgress?.(read);
    }
  } catch (error) {
    if (error instanceof JournalCorruptionError) return error;
    throw error;
  }
  return undefined;
}

/**
 * Finds the journal's first corrupt (or missing) entry and, with `yes`,
 * drops it and every entry after it. Entries after a corrupt one cannot be
 * trusted to follow it, so the cut is the whole tail; clients whose
 * acknowledged requests were in it learn it from their watermark when they
 * resume. Without `yes` it only reports what it would drop.
 */
export function truncateCorruptTail(
  dataDir: string,
  options: { yes: boolean; onStart?: (lastOp: number) => void; onProgress?: (ops: number) => void },
): Promise<CorruptTailReport> {
  return withStoppedJournal(dataDir, async (journal) => {
    const lastOp = journal.lastOp;
    options.onStart?.(lastOp);
    const corrupt = await findCorruptOp(journal, options.onProgress);
    if (!corrupt) {
      return { lastOp, corruptOp: null, reason: null, tailOps: 0, dropped: 0, lastOpAfter: lastOp };
    }
    const tailOps = lastOp - corrupt.op + 1;
    const dropped = options.yes ? await journal.truncateFrom(corrupt.op) : 0;
    return {
      lastOp,
      corruptOp: corrupt.op,
      reason: corrupt.message,
      tailOps,
      dropped,
      lastOpAfter: journal.lastOp,
    };
  });
}

/** What the report says in words, and whether it is a warning: the service's log and the CLI's text. */
export function corruptTailText(
  report: CorruptTailReport,
  yes: boolean,
  /** How the operator confirms: the service's flag or the CLI's command. */
  confirm = '--truncate-corrupt-tail --yes',
): string {
  if (report.corruptOp === null) {
    return `journal intact: ops 1 to ${report.lastOp}; nothing to truncate`;
  }
  if (!yes) {
    return `${report.reason}; ${confirm} would drop ops ${report.corruptOp} to ${report.lastOp} (${report.tailOps})`;
  }
  return `${report.reason}; dropped ${report.dropped} ops (from op ${report.corruptOp}); the journal now ends at op ${report.lastOpAfter}`;
}

/** Exit code of a truncation: 1 when corruption was found and left in place (no `--yes`). */
export function corruptTailExitCode(report: CorruptTailReport, yes: boolean): number {
  return report.corruptOp !== null && !yes ? 1 : 0;
}
