import { InvalidTableOptionsError } from './invalid-table-options.error';

/**
 * The limits of a client table. Both are part of the replicated state: they come from
 * the journal (initial settings, then settings changes), so replay applies the same ones.
 */
export interface ClientTableOptions {
  /** Maximum number of entries (sessions); a REGISTER of a new client at capacity evicts one. */
  capacity: number;
  /** Replies cached per session: the last `ring` committed requests (PROTOCOL.md: 8 by default). */
  ring: number;
}

/** Upper bound of `capacity` and `ring`: both are stored as u32 in a table snapshot. */
export const MAX_TABLE_LIMIT = 0xffff_ffff;

/** A capacity or ring a table accepts: an integer in 1..{@link MAX_TABLE_LIMIT}. */
export function isTableLimit(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_TABLE_LIMIT
  );
}

/** Throws {@link InvalidTableOptionsError} unless `capacity` and `ring` are integers in 1..2^32-1. */
export function validateTableOptions(options: ClientTableOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidTableOptionsError('client table options must be an object');
  }
  if (!isTableLimit(options.capacity)) {
    throw new InvalidTableOptionsError(
      `client table capacity must be an integer in 1..${MAX_TABLE_LIMIT}: ${String(options.capacity)}`,
    );
  }
  if (!isTableLimit(options.ring)) {
    throw new InvalidTableOptionsError(
      `client table ring must be an integer in 1..${MAX_TABLE_LIMIT}: ${String(options.ring)}`,
    );
  }
}
