/** The `data` object of every benchmark request: a deposit of 1, padded to a fixed JSON size. */
export interface BenchPayload {
  readonly account: string;
  readonly amount: number;
  readonly memo: string;
}

/**
 * The payload of the connection that owns `account`, padded with `memo` so
 * that its JSON is exactly `payloadBytes` bytes. The same object goes to the
 * once service (`ledger.deposit` ignores the memo) and to the NestJS echo
 * handler, so both servers move the same bytes per request. ASCII only: the
 * NestJS framing counts characters, and the load generator counts bytes.
 */
export function benchPayload(account: string, payloadBytes: number): BenchPayload {
  const bare = JSON.stringify({ account, amount: 1, memo: '' }).length;
  if (!Number.isSafeInteger(payloadBytes) || payloadBytes < bare) {
    throw new RangeError(`payload-bytes must be an integer of at least ${bare}: ${payloadBytes}`);
  }
  return { account, amount: 1, memo: 'x'.repeat(payloadBytes - bare) };
}
