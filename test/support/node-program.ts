import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

/** The repository root (the built programs live under its `dist/`). */
export const ROOT = resolve(__dirname, '../..');

/** How a program run by {@link runNodeProgram} ended, with everything it printed. */
export interface ProgramRun {
  readonly exitCode: number | null;
  readonly output: string;
}

/**
 * Runs `node <script> <args>` from the repository root in a process group of
 * its own and resolves with its exit code and output (stdout and stderr).
 * The program starts children of its own (services, load generators); at
 * `boundMs` the whole group is SIGKILLed, children included, so that a hang
 * fails with the program's output rather than a bare jest timeout, and
 * leaves nothing running. A bound, not a timing assertion.
 */
export function runNodeProgram(
  script: string,
  args: readonly string[],
  boundMs: number,
): Promise<ProgramRun> {
  return runInProcessGroup(process.execPath, [script, ...args], { cwd: ROOT, boundMs });
}

/** Where and how long {@link runInProcessGroup} runs a command. */
export interface GroupRunOptions {
  readonly cwd: string;
  /** The command's environment; default this process's. */
  readonly env?: NodeJS.ProcessEnv;
  /** When the whole group is SIGKILLed. */
  readonly boundMs: number;
}

/**
 * Runs `command args` in a process group of its own and resolves with its
 * exit code and output; at `boundMs`, and when it ends, whatever is left of
 * the group is SIGKILLed (see {@link runNodeProgram}).
 */
export function runInProcessGroup(
  command: string,
  args: readonly string[],
  { cwd, env, boundMs }: GroupRunOptions,
): Promise<ProgramRun> {
  return new Promise((done, failed) => {
    const child = spawn(command, args, {
      cwd,
      env: env ?? process.env,
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
      // Whatever the program left behind goes with it.
      killGroup();
      done({ exitCode, output });
    });
  });
}
