import { type LoggerService } from '@nestjs/common';
import { replayDataDir, verificationPassed, verificationText } from '@once/cli/internal';
import { AppModule } from '../app.module';
import { type ServerConfig } from '../config/server-config';
import { describeError } from '../fatal-error';

/**
 * `--verify`: replays the whole journal from op 1 (on a compacted journal,
 * from the oldest snapshot that covers the compacted ops) through the service's own
 * modules and compares the state at the newest snapshot with that snapshot,
 * byte for byte. Writes nothing. Resolves with the process exit code: 0 when
 * the journal is intact and the replay matches, 1 otherwise. The same code
 * runs `once verify` of `@once/cli`.
 */
export async function verifyJournal(config: ServerConfig, logger: LoggerService): Promise<number> {
  try {
    const replayed = await replayDataDir({ dataDir: config.dataDir, app: AppModule, logger });
    await replayed.close();
    logger.log(`verify: ${verificationText(replayed.verification)}`, 'Once');
    return verificationPassed(replayed.verification) ? 0 : 1;
  } catch (error) {
    logger.error(`verify: ${describeError(error)}`, 'Once');
    return 1;
  }
}
