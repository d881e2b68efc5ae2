import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** What {@link ensureOpenFilesLimit} found or did. */
export interface OpenFilesLimit {
  /** The soft limit before (Infinity: unlimited, or not Linux). */
  readonly softBefore: number;
  /** The soft limit the bench and its children run with. */
  readonly soft: number;
  readonly hard: number;
}

const LIMIT_LINE = /^Max open files\s+(\S+)\s+(\S+)/m;

/**
 * Makes sure this process, and so every child it spawns afterwards (children
 * inherit the limit), may hold `needed` open descriptors: a service with a
 * thousand connections holds a thousand sockets besides LevelDB's files.
 * Node cannot set a limit itself, so a soft limit below `needed` is raised
 * with util-linux's `prlimit --pid` up to the hard limit (no privilege
 * needed). Throws, saying what to run, when the hard limit is too low or
 * prlimit is missing. Outside Linux (no /proc) it checks nothing.
 */
export function ensureOpenFilesLimit(needed: number): OpenFilesLimit {
  const before = readLimit();
  if (!before) {
    return { softBefore: Infinity, soft: Infinity, hard: Infinity };
  }
  if (before.soft >= needed) return { softBefore: before.soft, ...before };
  if (before.hard < needed) {
    throw new Error(
      `open files: the hard limit ${before.hard} is below the ${needed} this bench needs; run it from a shell with \`ulimit -Hn ${needed}\` (as root) or a higher system limit`,
    );
  }
  try {
    execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${needed}:${before.hard}`], {
      stdio: 'pipe',
    });
  } catch (error) {
    throw new Error(
      `open files: the soft limit ${before.soft} is below the ${needed} this bench needs and prlimit could not raise it (${String(error)}); run \`ulimit -n ${needed}\` first`,
    );
  }
  const after = readLimit();
  if (!after || after.soft < needed) {
    throw new Error(
      `open files: the soft limit is still ${after?.soft}; run \`ulimit -n ${needed}\` first`,
    );
  }
  return { softBefore: before.soft, ...after };
}

function readLimit(): { soft: number; hard: number } | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
  const match = LIMIT_LINE.exec(text);
  if (!match) return undefined;
  const parse = (value: string) => (value === 'unlimited' ? Infinity : Number(value));
  return { soft: parse(match[1]), hard: parse(match[2]) };
}
