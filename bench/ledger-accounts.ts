/** The prefix of every account the module-state series opens. */
const PREFIX = 'acct-';

/**
 * The accounts of a ledger of `count`: `acct-` and the index, zero-padded
 * to one width, so that every name (and every request naming one) has the
 * same length and a request's frame can be patched in place.
 */
export class LedgerAccounts {
  /** Digits of the index in every name. */
  readonly width: number;

  constructor(readonly count: number) {
    if (!Number.isSafeInteger(count) || count < 1) {
      throw new RangeError(`an account count must be a positive integer: ${count}`);
    }
    this.width = String(count - 1).length;
  }

  /** The name of account `index` (from 0). */
  name(index: number): string {
    return `${PREFIX}${String(index).padStart(this.width, '0')}`;
  }

  /** Writes the digits of `index` into `target` at `offset` (ASCII, `width` bytes). */
  writeDigits(target: Buffer, offset: number, index: number): void {
    let rest = index;
    for (let at = offset + this.width - 1; at >= offset; at--) {
      target[at] = 0x30 + (rest % 10);
      rest = Math.floor(rest / 10);
    }
  }

  /** Where the digits start in a name: after the prefix. */
  static readonly digitsOffset = PREFIX.length;
}
