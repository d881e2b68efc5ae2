/**
 * A small seeded generator (mulberry32): every random choice of a soak run
 * (accounts, amounts, chaos delays and kinds) comes from one seed, so a run
 * that found a violation can be repeated with the same choices. Timing still
 * differs between runs (processes and sockets are real), so a repeat is a
 * strong hint, not a replay.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** An independent stream for `stream` (a client's index, the chaos loop…). */
  fork(stream: number): SeededRandom {
    return new SeededRandom(mix(this.state ^ mix(stream + 0x9e37_79b9)));
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b_79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  }

  /** Uniform integer in [min, max]. */
  integer(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** A 32-bit integer hash (murmur3's finalizer), to spread nearby seeds apart. */
function mix(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85eb_ca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2_ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
