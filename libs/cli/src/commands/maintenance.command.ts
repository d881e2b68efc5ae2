import { type Command } from 'commander';
import { CliError } from '../cli-error';
import { corruptTailExitCode, corruptTailText, truncateCorruptTail } from '../corrupt-tail';
import { withApp, withDataDir } from '../data-dir-option';
import { withStoppedJournal } from '../stopped-data-dir';
import { type Output } from '../output';
import { type ReplayCommandOptions, replayForCommand } from '../replay-command';
import { verificationPassed, verificationText } from '../replayed-data-dir';

/**
 * The maintenance commands on a stopped data directory: `verify`,
 * `truncate-corrupt-tail`, `snapshot`, and `compact`.
 * The service's `--verify` and `--truncate-corrupt-tail` flags run the same code.
 */
export function registerMaintenance(
  program: Command,
  outputOf: (command: Command) => Output,
  exit: (code: number) => void,
): void {
  withApp(withDataDir(program.command('verify')))
    .description('replay the whole journal from op 1 and compare it with the newest snapshot')
    .action(async (options: ReplayCommandOptions, command: Command) => {
      const out = outputOf(command);
      const replayed = await replayForCommand(out, options);
      await replayed.close();
      const result = replayed.verification;
      const ok = verificationPassed(result);
      out.result({ ok, ...result }, () => [`verify: ${verificationText(result)}`]);
      if (!ok) exit(1);
    });

  withDataDir(program.command('truncate-corrupt-tail'))
    .description('find the first corrupt entry; with --yes drop it and every entry after it')
    .option('--yes', 'drop the corrupt tail (without it, only say what would be dropped)')
    .action(async (options: { dataDir: string; yes?: boolean }, command: Command) => {
      const out = outputOf(command);
      const yes = options.yes === true;
      const progress = out.progress('scan');
      const report = await truncateCorruptTail(options.dataDir, {
        yes,
        onStart: (lastOp) => progress.start(lastOp),
        onProgress: (ops) => progress.update(ops),
      }).finally(() => progress.stop());
      out.result(report, () => [corruptTailText(report, yes, 'once truncate-corrupt-tail --yes')]);
      exit(corruptTailExitCode(report, yes));
    });

  withApp(withDataDir(program.command('snapshot')))
    .description(
      'replay (verifying) and write a snapshot at the journal end, so the next boot replays nothing',
    )
    .action(async (options: ReplayCommandOptions, command: Command) => {
      const out = outputOf(command);
      const replayed = await replayForCommand(out, options);
      try {
        const { verification, engine } = replayed;
        if (verification.snapshotMatches === false) {
          throw new CliError(
            'SNAPSHOT_DIFFERS',
            `the replay at op ${verification.snapshotOp} differs from the snapshot taken there; no snapshot written (see \`once verify\`)`,
          );
        }
        const op = engine.commitOp;
        const written = op > 0 && verification.snapshotOp !== op;
        const payload = engine.captureSnapshot();
        // Through the engine: a snapshot with keyed state is written with its records.
        if (written) await engine.writeSnapshot();
        const result = { op, bytes: payload.length, written };
        out.result(result, () => [
          op === 0
            ? 'snapshot: the journal is empty; nothing to snapshot'
            : written
              ? `snapshot: written at op ${op} (${payload.length} bytes)`
              : `snapshot: the newest snapshot is already at op ${op}; nothing written`,
        ]);
      } finally {
        await replayed.close();
      }
    });

  withDataDir(program.command('compact'))
    .description(
      'delete the journal history below the oldest kept snapshot (ONCE_JOURNAL_RETAIN does it while serving)',
    )
    .option('--keep <snapshots>', 'snapshots whose history is kept', '2')
    .action(async (options: { dataDir: string; keep: string }, command: Command) => {
      const out = outputOf(command);
      const keep = Number(options.keep);
      if (!Number.isSafeInteger(keep) || keep < 1) {
        throw new CliError('USAGE', `--keep must be an integer >= 1: ${options.keep}`, 2);
      }
      const result = await withStoppedJournal(options.dataDir, async (journal) => {
        const before = journal.firstOp;
        const compaction = await journal.compact({ retainSnapshots: keep });
        return { firstOpBefore: before, lastOp: journal.lastOp, ...compaction };
      });
      out.result(result, () => [
        result.deletedEntries === 0
          ? `compact: nothing to delete; the journal holds ops ${result.firstOp} to ${result.lastOp}`
          : `compact: deleted ${result.deletedEntries} entries in ${result.batches} batches; the journal now holds ops ${result.firstOp} to ${result.lastOp}${result.interrupted ? ' (interrupted: run it again)' : ''}`,
      ]);
      if (result.interrupted) exit(1);
    });
}
