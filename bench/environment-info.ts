import { cpus, release, totalmem, type } from 'node:os';
import { relative } from 'node:path';

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
  };
}
