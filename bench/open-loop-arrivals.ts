import { Command } from 'commander';
import { nonNegativeInteger, positiveInteger } from './cli-numbers';

/** Arrivals are generated on this timer period, like the load generator's open loop. */
const TICK_MS = 1;

/** The arrivals' timeline in `performance.now()` ms: they start at `firstMs`; those in [startMs, endMs) are measured. */
export interface ArrivalTimes {
  readonly firstMs: number;
  readonly startMs: number;
  readonly endMs: number;
}

/** Arrivals start now; the window follows a warm-up of `warmupMs`. */
export function arrivalTimes(warmupMs: number, durationMs: number): ArrivalTimes {
  const firstMs = performance.now();
  return { firstMs, startMs: firstMs + warmupMs, endMs: firstMs + warmupMs + durationMs };
}

/**
 * Offers `ratePerSecond` arrivals in total, on a 1 ms timer exactly as the
 * load generator's open loop does (every arrival due since `firstMs`, all at
 * once per tick), calling `arrive(count, nowMs)` per tick, until the window
 * ends or `stopped()` says so. Bench children that need no server use it, so
 * their requests arrive as the service's do.
 */
export function offerArrivals(
  times: ArrivalTimes,
  ratePerSecond: number,
  arrive: (count: number, nowMs: number) => void,
  stopped: () => boolean,
): Promise<void> {
  let offered = 0;
  return new Promise<void>((done) => {
    const timer = setInterval(() => {
      const nowMs = performance.now();
      if (nowMs >= times.endMs || stopped()) {
        clearInterval(timer);
        done();
        return;
      }
      const due = Math.floor(((nowMs - times.firstMs) * ratePerSecond) / 1000) - offered;
      if (due <= 0) return;
      offered += due;
      arrive(due, nowMs);
    }, TICK_MS);
  });
}

/** The command line of the open-loop disk children (raw-level-group-commit, journal-group-commit). */
export interface OpenLoopDiskOptions {
  readonly dir: string;
  readonly ratePerSecond: number;
  readonly valueBytes: number;
  readonly warmupMs: number;
  readonly durationMs: number;
}

/** Parses `argv` as both open-loop disk children take it; `dirHelp` says what `--dir` holds. */
export function openLoopDiskOptions(argv: readonly string[], dirHelp: string): OpenLoopDiskOptions {
  return new Command()
    .requiredOption('--dir <dir>', dirHelp)
    .requiredOption('--rate-per-second <n>', 'requests offered per second', positiveInteger)
    .requiredOption('--value-bytes <bytes>', 'bytes per stored entry', positiveInteger)
    .option('--warmup-ms <ms>', 'warm-up', nonNegativeInteger, 1000)
    .option('--duration-ms <ms>', 'measurement window', positiveInteger, 5000)
    .parse([...argv])
    .opts<OpenLoopDiskOptions>();
}
