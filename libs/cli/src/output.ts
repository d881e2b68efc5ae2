import { CliError } from './cli-error';
import { type Progress, progressOf } from './progress';

/** The streams and environment a CLI run talks to (the process's own, or a test's). */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
}

/** The options every command takes. */
export interface GlobalOptions {
  /** One JSON document on stdout (the `--json` shapes are in docs/operating/cli.md). */
  readonly json?: boolean;
  /** No progress on stderr. */
  readonly quiet?: boolean;
  /** Nest's and the runtime's log on stderr while replaying. */
  readonly verbose?: boolean;
}

/**
 * Where a command's result goes: stdout, as text for people or (with
 * `--json`) as one JSON document for scripts. Progress and logs go to
 * stderr, so the result on stdout is always parseable.
 */
export class Output {
  constructor(
    readonly io: CliIo,
    readonly options: GlobalOptions,
  ) {}

  get json(): boolean {
    return this.options.json === true;
  }

  /** Prints the result: `value` as JSON, or the text lines. */
  result(value: unknown, lines: () => readonly string[]): void {
    this.io.stdout.write(this.json ? `${JSON.stringify(value)}\n` : `${lines().join('\n')}\n`);
  }

  /**
   * One item of a stream of results (`tail --follow`): `value` as one JSON
   * line with `--json`, else its text line. Streams have no closing document.
   */
  line(value: unknown, text: () => string): void {
    this.io.stdout.write(this.json ? `${JSON.stringify(value)}\n` : `${text()}\n`);
  }

  /** A note for people on stderr (never in the way of `--json`). */
  note(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }

  progress(label: string, unit?: string): Progress {
    return progressOf({ label, unit, stream: this.io.stderr, enabled: !this.options.quiet });
  }

  /** Reports `error` and returns the exit code: its own for a CliError, else 1. */
  error(error: unknown): number {
    const { code, message, exitCode } = describe(error);
    if (this.json) this.io.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    else this.io.stderr.write(`once: ${message}\n`);
    return exitCode;
  }
}

/**
 * A failure as the CLI reports it. Errors of the once packages carry a stable
 * `code` (JOURNAL_CORRUPT, DATA_DIR_IN_USE, …), kept as they are; anything
 * else is INTERNAL.
 */
function describe(error: unknown): { code: string; message: string; exitCode: number } {
  if (error instanceof CliError) {
    return { code: error.code, message: error.message, exitCode: error.exitCode };
  }
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return { code: typeof code === 'string' ? code : 'INTERNAL', message, exitCode: 1 };
}
