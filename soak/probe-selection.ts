import { type SeededRandom } from './seeded-random';
import { type TransferRecord } from './transfer-record';

/** Which transfers the final pass probes. */
export interface ProbeSelection {
  readonly records: readonly TransferRecord[];
  /** Acknowledged transfers probed, of how many. */
  readonly acknowledgedProbed: number;
  readonly acknowledged: number;
}

/**
 * Every transfer that was not acknowledged (refused, in doubt, not sent,
 * failed, doubled: where a phantom or hidden application would be), and the
 * acknowledged ones up to `acknowledgedLimit`, a seeded uniform sample when
 * there are more (probing costs one journaled command each, as much as the
 * load itself). Acknowledged transfers left out are still covered, in
 * aggregate, by the balance reconciliation: one lost would move two balances.
 */
export function selectProbes(
  records: readonly TransferRecord[],
  acknowledgedLimit: number,
  random: SeededRandom,
): ProbeSelection {
  const acknowledged = records.filter((record) => record.outcome.kind === 'acknowledged');
  const others = records.filter((record) => record.outcome.kind !== 'acknowledged');
  const count = Math.min(acknowledgedLimit, acknowledged.length);
  // A partial Fisher–Yates shuffle: the first `count` are a uniform sample.
  for (let index = 0; index < count; index++) {
    const pick = random.integer(index, acknowledged.length - 1);
    [acknowledged[index], acknowledged[pick]] = [acknowledged[pick], acknowledged[index]];
  }
  return {
    records: [...others, ...acknowledged.slice(0, count)],
    acknowledgedProbed: count,
    acknowledged: acknowledged.length,
  };
}
