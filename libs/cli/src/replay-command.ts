import { type LoggerService } from '@nestjs/common';
import { appModulePath, loadAppModule } from './app-module';
import { CliError } from './cli-error';
import { type Output } from './output';
import { type ReplayedDataDir, replayDataDir } from './replayed-data-dir';

/** The options of the commands that replay a stopped data directory. */
export interface ReplayCommandOptions {
  readonly dataDir: string;
  /** `file[#Export]` of the service's root module (see `appModulePath`). */
  readonly app?: string;
}

/**
 * Replays the directory for a command, with a progress bar, and turns a
 * corrupt journal into an error that says what to do about it.
 */
export async function replayForCommand(
  out: Output,
  options: ReplayCommandOptions,
): Promise<ReplayedDataDir> {
  const { module: app, host } = loadAppModule(appModulePath(options.app, out.io.env));
  const progress = out.progress('replay');
  let started = false;
  try {
    return await replayDataDir({
      dataDir: options.dataDir,
      app,
      host,
      logger: out.options.verbose ? stderrLogger(out) : false,
      onProgress: (commitOp, lastOp) => {
        if (!started) progress.start(lastOp);
        started = true;
        progress.update(commitOp);
      },
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'JOURNAL_CORRUPT') {
      throw new CliError(
        'JOURNAL_CORRUPT',
        `${(error as Error).message}; \`once truncate-corrupt-tail\` shows what a repair would drop`,
      );
    }
    throw error;
  } finally {
    progress.stop();
  }
}

/** `--verbose`: the runtime's and Nest's log lines, on stderr. */
function stderrLogger(out: Output): LoggerService {
  const write =
    (level: string) =>
    (message: unknown, ...rest: unknown[]): void => {
      const context = typeof rest.at(-1) === 'string' ? ` [${String(rest.at(-1))}]` : '';
      out.note(`${level}${context} ${String(message)}`);
    };
  return { log: write('LOG'), warn: write('WARN'), error: write('ERROR') };
}
