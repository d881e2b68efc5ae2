import { runInProcessGroup } from '../../support/node-program';
import { environmentWithoutNpm } from '../../support/packed-workspaces';

/** How a command run in a project ended, with everything it printed. */
export interface CommandRun {
  readonly command: string;
  readonly exitCode: number | null;
  readonly output: string;
}

/**
 * The environment of a command run in a project of its own: this process's,
 * without what npm and jest set for the monorepo's own run (`npm_*`, such as
 * `npm_config_local_prefix`, would point a nested npm at the monorepo;
 * `JEST_*` would tell a nested jest it is a worker).
 */
function projectEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(environmentWithoutNpm()).filter(([name]) => !name.startsWith('JEST_')),
  );
}

/**
 * Runs `command args` in `cwd`, in a process group of its own, and resolves
 * with its exit code and output (stdout and stderr). At `boundMs` the whole
 * group is SIGKILLed (a nested test run starts services of its own), so a
 * hang fails with the command's output rather than a bare timeout. A bound,
 * not a timing assertion.
 */
export async function runInProject(
  cwd: string,
  command: string,
  args: readonly string[],
  boundMs: number,
): Promise<CommandRun> {
  const run = await runInProcessGroup(command, args, { cwd, env: projectEnvironment(), boundMs });
  return { command: [command, ...args].join(' '), ...run };
}

/** Fails with the command's own output (its tail) unless it exited with 0. */
export function expectSucceeded(run: CommandRun): void {
  if (run.exitCode === 0) return;
  throw new Error(
    `\`${run.command}\` exited with ${run.exitCode}; its output:\n${run.output.slice(-12_000)}`,
  );
}
