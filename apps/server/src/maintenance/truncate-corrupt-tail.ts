import { type LoggerService } from '@nestjs/common';
import { JournalCorruptionError, JournalStore } from '@once/journal';
import { type ServerConfig } from '../config/server-config';

/**
 * `--truncate-corrupt-tail [--yes]`: finds the journal's first corrupt (or
 * missing) entry and, confirmed with `--yes`, drops it and every entry after
 * it, saying how many. Without `--yes` it only says what it would drop.
 * Entries after a corrupt one cannot be trusted to follow it, so the cut is
 * the whole tail; the clients whose acknowledged requests were in it learn it
 * from their watermark when they resume.
 */
export async function truncateCorruptTail(
  config: ServerConfig,
  logger: LoggerService,
): Promise<number> {
  const journal = await JournalStore.open(config.dataDir);
  try {
    let corruptOp: number | undefined;
    let reason = '';
    try {
      for await (const batch of journal.readBatches(journal.firstOp)) void batch;
    } catch (error) {
      if (!(error instanceof JournalCorruptionError)) throw error;
      corruptOp = error.op;
      reason = error.message;
    }
    if (corruptOp === undefined) {
      logger.log(
        `journal intact: ops ${journal.firstOp} to ${journal.lastOp}; nothing to truncate`,
        'Once',
      );
      return 0;
    }
    const doomed = journal.lastOp - corruptOp + 1;
    if (!config.yes) {
      logger.warn(
        `${reason}; --truncate-corrupt-tail --yes would drop ops ${corruptOp} to ${journal.lastOp} (${doomed})`,
        'Once',
      );
      return 1;
    }
    const dropped = await journal.truncateFrom(corruptOp);
    logger.warn(
      `${reason}; dropped ${dropped} ops (from op ${corruptOp}); the journal now ends at op ${journal.lastOp}`,
      'Once',
    );
    return 0;
  } finally {
    await journal.close();
  }
}
