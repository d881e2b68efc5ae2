import { type LoggerService } from '@nestjs/common';
import { corruptTailExitCode, corruptTailText, truncateCorruptTail } from '@once/cli/internal';
import { type ServerConfig } from '../config/server-config';

/**
 * `--truncate-corrupt-tail [--yes]`: finds the journal's first corrupt (or
 * missing) entry and, confirmed with `--yes`, drops it and every entry after
 * it, saying how many. Without `--yes` it only says what it would drop (exit
 * code 1). The same code runs `once truncate-corrupt-tail` of `@once/cli`.
 */
export async function truncateCorruptTailOf(
  config: ServerConfig,
  logger: LoggerService,
): Promise<number> {
  const report = await truncateCorruptTail(config.dataDir, { yes: config.yes });
  const text = corruptTailText(report, config.yes);
  if (report.corruptOp === null) logger.log(text, 'Once');
  else logger.warn(text, 'Once');
  return corruptTailExitCode(report, config.yes);
}
