import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { join, relative } from 'node:path';

/** Where and how the figures were measured; ratios only compare within one of these. */
export interface EnvironmentInfo {
  readonly date: string;
  readonly node: string;
  readonly os: string;
  readonly arch: string;
  readonly cpuCount: number;
  readonly cpuModel: string;
  readonly totalMemoryBytes: number;
  /** The exact command of the orchestrator (and the npm script, if run through one). */
  readonly command: string;
  readonly npmScript: string | undefined;
  /**
   * The commit measured (`git rev-parse --short HEAD`, with `-dirty` when the
   * tree held changes), so a published figure says what it is a figure of;
   * undefined outside a git checkout.
   */
  readonly commit: string | undefined;
  /** The version in the root package.json. */
  readonly version: string | undefined;
}

export function environmentInfo(): EnvironmentInfo {
  const processors = cpus();
  const script = relative(process.cwd(), process.argv[1]);
  return {
    date: new Date().toISOString(),
    node: process.version,
    os: `${type()} ${release()}`,
    arch: process.arch,
    cpuCount: processors.length,
    cpuModel: processors[0]?.model ?? 'unknown',
    totalMemoryBytes: totalmem(),
    command: ['node', script, ...process.argv.slice(2)].join(' '),
    npmScript: process.env.npm_lifecycle_event,
    commit: gitCommit(),
    version: rootVersion(),
  };
}

function gitCommit(): string | undefined {
  try {
    const git = (...args: string[]): string =>
      execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const head = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') === '' ? head : `${head}-dirty`;
  } catch {
    return undefined;
  }
}

function rootVersion(): string | undefined {
  try {
    const path = join(process.cwd(), 'package.json');
    return (JSON.parse(readFileSync(path, 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}
