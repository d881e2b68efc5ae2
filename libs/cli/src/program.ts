import { Command, CommanderError } from 'commander';
import { registerJournal } from './commands/journal.command';
import { registerMaintenance } from './commands/maintenance.command';
import { registerSessions } from './commands/sessions.command';
import { registerStatus } from './commands/status.command';
import { type CliIo, type GlobalOptions, Output } from './output';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package's own manifest (beside dist/ and src/ alike): its version is the CLI's. */
const MANIFEST = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
  version: string;
};

/**
 * Runs the `once` CLI on `argv` (node, script, arguments...) and resolves
 * with the process exit code: 0 done, 1 failed (or found a problem: a
 * corrupt journal, a snapshot that differs), 2 a usage error.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  let output: Output | undefined;
  const outputOf = (command: Command): Output =>
    (output = new Output(io, command.optsWithGlobals<GlobalOptions>()));
  const program = new Command('once')
    .description('Operate a once node: its status, sessions, journal and data directory')
    .version(MANIFEST.version)
    .option('--json', 'print the result as one JSON document')
    .option('-q, --quiet', 'no progress on stderr')
    .option('--verbose', "the service's log on stderr while replaying")
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  registerStatus(program, outputOf);
  registerSessions(program, outputOf);
  registerJournal(program, outputOf);
  registerMaintenance(program, outputOf, (code) => (exitCode = code));
  exitOverrideEverywhere(program);
  try {
    await program.parseAsync([...argv]);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end as "errors" with exit code 0; usage errors are already printed.
      return error.exitCode === 0 ? 0 : 2;
    }
    return (output ?? new Output(io, program.opts<GlobalOptions>())).error(error);
  }
}

/** Commander's subcommands inherit no exit override: set it on every one, so none calls process.exit. */
function exitOverrideEverywhere(command: Command): void {
  for (const sub of command.commands) {
    sub.exitOverride();
    sub.configureOutput(command.configureOutput());
    sub.showHelpAfterError();
    exitOverrideEverywhere(sub);
  }
}
