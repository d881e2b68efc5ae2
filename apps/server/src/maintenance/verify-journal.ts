import { type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { OnceRuntime } from '@once/framework';
import { AppModule } from '../app.module';
import { type ServerConfig } from '../config/server-config';
import { describeError } from '../fatal-error';

/**
 * `--verify`: replays the whole journal from op 1 (on a compacted journal,
 * from the oldest snapshot that covers the compacted ops) through the service's own
 * modules and compares the state at the newest snapshot with that snapshot,
 * byte for byte. Writes nothing. Resolves with the process exit code: 0 when
 * the journal is intact and the replay matches, 1 otherwise.
 */
export async function verifyJournal(config: ServerConfig, logger: LoggerService): Promise<number> {
  const app = await NestFactory.createApplicationContext(
    AppModule.register({ dataDir: config.dataDir, verifyOnly: true }),
    { logger, abortOnError: false },
  );
  try {
    await app.init();
    const result = await app.get(OnceRuntime).whenVerified();
    const snapshot =
      result.snapshotOp === undefined
        ? 'no snapshot to compare with'
        : `the replay at op ${result.snapshotOp} ${result.snapshotMatches ? 'equals' : 'DIFFERS FROM'} the snapshot taken there`;
    const from =
      result.startSnapshotOp === undefined
        ? 'from op 1'
        : `from op ${result.fromOp} (after the snapshot at op ${result.startSnapshotOp}: the journal was compacted, op 1 is gone)`;
    logger.log(
      `verify: ${result.entries} journal entries replayed ${from}, all intact; ${snapshot}`,
      'Once',
    );
    return result.snapshotMatches === false ? 1 : 0;
  } catch (error) {
    logger.error(`verify: ${describeError(error)}`, 'Once');
    return 1;
  } finally {
    await app.close();
  }
}
