import { runBenchChild } from './bench-children';
import { type BenchContext } from './bench-context';
import { type LatencySummary } from './latency-samples';

/**
 * Slack over a child's planned time before it counts as hung: opening a
 * database or creating a stream, and writing its report, come on top of its
 * warm-up and window.
 */
export const CHILD_SLACK_MS = 120_000;

/**
 * Runs the bench child `name` (a bare baseline: LevelDB batches, LevelDB
 * group commit, JetStream publishes) for the bench's own warm-up and window,
 * so that the baseline and the figure it is compared with are measured over
 * the same length of time: `args`, then `--warmup-ms` and `--duration-ms`;
 * SIGKILLed past both and {@link CHILD_SLACK_MS}. Shared by the single-node
 * and the cluster throughput runs, which differ only in their target.
 */
export function runTimedBenchChild<T>(
  context: BenchContext,
  name: string,
  args: readonly string[],
): Promise<T> {
  const { warmupMs, durationMs } = context.options;
  return runBenchChild<T>(
    context.build,
    name,
    [...args, '--warmup-ms', String(warmupMs), '--duration-ms', String(durationMs)],
    { timeoutMs: warmupMs + durationMs + CHILD_SLACK_MS },
  );
}

/** `p50 1.23 ms, p99 4.56 ms`: the latency part of a run's progress lines. */
export function describeLatency(latency: LatencySummary): string {
  return `p50 ${latency.p50Ms.toFixed(2)} ms, p99 ${latency.p99Ms.toFixed(2)} ms`;
}
