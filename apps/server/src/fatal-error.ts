import { inspect } from 'node:util';
import { redactSecrets } from '@once/settings';

/** Causes followed at most: a chain is a few links deep, a cycle must not hang the exit. */
const CAUSE_DEPTH = 8;

/**
 * An error as an operator needs to read it: its message and code, then one
 * `cause:` line per link of its `cause` chain (where libraries put the real
 * reason: LevelDB's "Corruption: …" sits behind "Database failed to open").
 * Duck-typed, since native and cross-realm errors fail `instanceof Error`.
 */
export function describeError(error: unknown): string {
  return redactSecrets(describeChain(error));
}

/**
 * The chain, unredacted. Credentials in URLs are hidden by the caller: a
 * library's error (a NATS client's, a driver's) may quote the address it
 * dialled, `user:password@` included.
 */
function describeChain(error: unknown): string {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth <= CAUSE_DEPTH && current !== undefined && current !== null; depth++) {
    lines.push(`${depth === 0 ? '' : 'cause: '}${describeOne(current)}`);
    current = typeof current === 'object' ? (current as { cause?: unknown }).cause : undefined;
  }
  return lines.join('\n');
}

function describeOne(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const { message, code } = error as { message?: unknown; code?: unknown };
  const text = typeof message === 'string' ? message : inspect(error);
  return typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text;
}

/**
 * The line a fatal error is printed as, in the service's log format: text
 * (`once: <what>: <error>` and its `cause:` lines) or one JSON object like
 * the logger's, with the whole description in `message` and the chain in
 * `causes`.
 */
export function fatalLine(what: string, error: unknown, format: 'text' | 'json'): string {
  const description = describeError(error);
  if (format === 'text') return `once: ${what}: ${description}\n`;
  const [first, ...causes] = description.split('\n');
  const { code } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown };
  return `${JSON.stringify({
    level: 'fatal',
    pid: process.pid,
    timestamp: Date.now(),
    message: `${what}: ${description}`,
    context: 'Once',
    ...(typeof code === 'string' && { code }),
    error: first,
    causes: causes.map((line) => line.replace(/^cause: /, '')),
  })}\n`;
}
