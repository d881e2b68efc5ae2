import { InvalidArgumentError } from 'commander';
import { positiveInteger } from '../bench/cli-numbers';

// commander argument parsers for the soak's own flags; the plain numeric ones are bench/cli-numbers.

/** A positive integer, or `all` (Infinity). */
export function countOrAll(value: string): number {
  return value.trim() === 'all' ? Number.POSITIVE_INFINITY : positiveInteger(value);
}

/** A seed is a 32-bit unsigned integer: the state of the generator (see SeededRandom). */
export function seedValue(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0 || parsed > 0xffff_ffff) {
    throw new InvalidArgumentError('expected an integer in 0..4294967295');
  }
  return parsed;
}

/** A closed interval of milliseconds that a delay is drawn from, uniformly. */
export interface RangeMs {
  readonly minMs: number;
  readonly maxMs: number;
}

/** `"2000-6000"` (a range) or `"3000"` (a fixed delay), in milliseconds. */
export function rangeMs(value: string): RangeMs {
  const match = /^(\d+)(?:-(\d+))?$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('expected <ms> or <min ms>-<max ms>');
  const minMs = Number(match[1]);
  const maxMs = match[2] === undefined ? minMs : Number(match[2]);
  if (minMs < 1 || maxMs < minMs) {
    throw new InvalidArgumentError('expected 1 ≤ min ≤ max');
  }
  return { minMs, maxMs };
}
