import { type ChildProcess, spawn } from 'node:child_process';
import { delimiter } from 'node:path';
import { type BuildSnapshot, benchScript } from './build-snapshot';

/** Every child the orchestrator started and that may still run. */
const live = new Set<ChildProcess>();

/** Options of {@link spawnNode}. */
export interface SpawnNodeOptions {
  /** Node flags before the script (`--expose-gc`). */
  readonly nodeArgs?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Spawns `process.execPath <script> <args>` from the build snapshot, stdout
 * and stderr piped, and remembers it so that {@link killAllChildren} can end
 * it if the bench fails. NODE_PATH points at the repository's node_modules:
 * the snapshot may live outside the repository.
 */
export function spawnNode(
  build: BuildSnapshot,
  script: string,
  args: readonly string[],
  options: SpawnNodeOptions = {},
): ChildProcess {
  const nodePath = [build.nodeModules, process.env.NODE_PATH].filter(Boolean).join(delimiter);
  return spawnTracked(process.execPath, [...(options.nodeArgs ?? []), script, ...args], {
    ...process.env,
    NODE_PATH: nodePath,
    NO_COLOR: '1',
    ...options.env,
  });
}

/** The OS user a program runs as (PostgreSQL refuses to run as root). */
export interface ProgramUser {
  readonly uid: number;
  readonly gid: number;
  /**
   * The working directory to start in: the caller's may be one this user
   * cannot enter (a clone under a private home), and some programs
   * (`initdb`, `postgres`) fail when they cannot.
   */
  readonly cwd?: string;
}

/**
 * Spawns any program (`nats-server`), stdout and stderr piped, remembered
 * like {@link spawnNode}'s children so that a failing bench leaves none behind.
 */
export function spawnTracked(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  user?: ProgramUser,
): ChildProcess {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], ...user });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** SIGKILLs every child still running (the bench is failing or exiting). */
export function killAllChildren(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}

/**
 * Runs the bench child entry `name` to completion and resolves with the JSON
 * object of the last line it printed on stdout; rejects with its stderr when
 * it fails or outlives `timeoutMs`.
 */
export function runBenchChild<T>(
  build: BuildSnapshot,
  name: string,
  args: readonly string[],
  options: SpawnNodeOptions & { timeoutMs: number },
): Promise<T> {
  const child = spawnNode(build, benchScript(build, name), args, options);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const lines = stdout.trim().split('\n');
      if (code !== 0) {
        reject(new Error(`${name} ${args.join(' ')} exited with ${code ?? signal}:\n${stderr}`));
        return;
      }
      try {
        resolve(JSON.parse(lines[lines.length - 1]) as T);
      } catch {
        reject(new Error(`${name} printed no JSON result:\n${stdout}\n${stderr}`));
      }
    });
  });
}
