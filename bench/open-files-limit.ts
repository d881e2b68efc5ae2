import { readFileSync } from 'node:fs';

/** The descriptor limit the bench and its children run with. */
export interface OpenFilesLimit {
  /** Infinity: unlimited, or not known (no /proc). */
  readonly soft: number;
  readonly hard: number;
}

const LIMIT_LINE = /^Max open files\s+(\S+)\s+(\S+)/m;

/**
 * Makes sure this process, and so every child it spawns (children inherit
 * the limit), may hold `needed` open descriptors: a service with a thousand
 * connections holds a thousand sockets besides LevelDB's files. Node raises
 * its soft limit to the hard one when it starts, so only a hard limit below
 * `needed` is a problem, and one only root can lift: the bench then stops
 * at once, saying what to run, rather than failing a thousand connections
 * later. Outside Linux (no /proc) it checks nothing.
 */
export function ensureOpenFilesLimit(needed: number): OpenFilesLimit {
  let text: string;
  try {
    text = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return { soft: Infinity, hard: Infinity };
  }
  const match = LIMIT_LINE.exec(text);
  if (!match) return { soft: Infinity, hard: Infinity };
  const parse = (value: string) => (value === 'unlimited' ? Infinity : Number(value));
  const limit = { soft: parse(match[1]), hard: parse(match[2]) };
  if (limit.soft < needed) {
    throw new Error(
      `open files: the limit is ${limit.soft} (hard ${limit.hard}), below the ${needed} this bench needs; raise it (\`ulimit -n ${needed}\`, as root if the hard limit is lower) and run the bench again`,
    );
  }
  return limit;
}
