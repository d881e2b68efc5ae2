/**
 * An error the CLI reports as such: a stable `code` for scripts (`--json`
 * prints `{"error": {"code", "message"}}`), a message for people, and the
 * process exit code. Anything else thrown is reported as INTERNAL.
 */
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    readonly code: string,
    message: string,
    /** Process exit code. Default 1; 2 for a usage error. */
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
