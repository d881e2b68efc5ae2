import { percentileOfSorted } from './stats';

const INITIAL_CAPACITY = 1 << 16;

/** Latency percentiles of one load run, in milliseconds. */
export interface LatencySummary {
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/**
 * Every latency of a run, kept whole (percentiles come from all samples, not
 * from a histogram's buckets). A growable Float64Array: a few hundred
 * thousand samples cost a few MB and no per-sample allocation.
 */
export class LatencySamples {
  private values = new Float64Array(INITIAL_CAPACITY);
  private count = 0;

  add(latencyMs: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = latencyMs;
  }

  summary(): LatencySummary {
    const sorted = this.values.slice(0, this.count).sort();
    return {
      samples: this.count,
      p50Ms: percentileOfSorted(sorted, 0.5),
      p99Ms: percentileOfSorted(sorted, 0.99),
      maxMs: this.count > 0 ? sorted[this.count - 1] : Number.NaN,
    };
  }
}
