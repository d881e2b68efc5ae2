import { type Command, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { CliError } from './cli-error';

/**
 * `--operations-token-file`: the credential of a node's metrics listener,
 * the same file (and variable) the node is given, so one secret serves both.
 * Needed by `journal tail --metrics-url` always, and by `status --metrics-url`
 * when the node protects `/metrics` too.
 */
export function withOperationsToken(command: Command): Command {
  return command.addOption(
    new Option(
      '--operations-token-file <file>',
      "file holding the metrics listener's credential (sent as a bearer token)",
    ).env('ONCE_OPERATIONS_TOKEN_FILE'),
  );
}

/**
 * The operations token a token file's text holds: its first line,
 * surrounding white space dropped (a trailing newline from `echo` is not
 * part of it). The node reads its credential file the same way, so one file
 * serves both.
 */
export function operationsTokenOf(text: string): string {
  return (text.split(/\r?\n/, 1)[0] ?? '').trim();
}

/**
 * The `Authorization` header for the token in `file` (its first line,
 * trimmed, as the node reads it); no header without a file. The token is
 * never printed, the file's name is.
 */
export function operationsHeaders(file: string | undefined): Record<string, string> {
  if (file === undefined) return {};
  let token: string;
  try {
    token = operationsTokenOf(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CliError('TOKEN_FILE_UNREADABLE', `cannot read ${file} (${reason})`, 2);
  }
  if (token.length === 0) throw new CliError('TOKEN_FILE_UNREADABLE', `${file} is empty`, 2);
  return { authorization: `Bearer ${token}` };
}
