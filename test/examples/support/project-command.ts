import { spawn } from 'node:child_process';
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
export function runInProject(
  cwd: string,
  command: string,
  args: readonly string[],
  boundMs: number,
): Promise<CommandRun> {
  const line = [command, ...args].join(' ');
  return new Promise((done, failed) => {
    const child = spawn(command, args, {
      cwd,
      env: projectEnvironment(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is already gone
      }
    };
    const timer = setTimeout(() => {
      output += `\n(killed after ${boundMs} ms)`;
      killGroup();
    }, boundMs);
    child.once('error', failed);
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      killGroup();
      done({ command: line, exitCode, output });
    });
  });
}

/** Fails with the command's own output (its tail) unless it exited with 0. */
export function expectSucceeded(run: CommandRun): void {
  if (run.exitCode === 0) return;
  throw new Error(
    `\`${run.command}\` exited with ${run.exitCode}; its output:\n${run.output.slice(-12_000)}`,
  );
}
