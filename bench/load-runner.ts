import { runBenchChild } from './bench-children';
import { type BenchContext } from './bench-context';
import { type LoadReport } from './load-report';

/** How one load generator runs: closed loop, open loop at a rate, or a fixed count. */
export type LoadMode =
  | { readonly kind: 'closed' }
  | { readonly kind: 'open'; readonly ratePerSecond: number }
  | { readonly kind: 'fixed'; readonly requests: number };

const OPEN_LOOP_DRAIN_MS = 5000;
/** Slack over the planned duration before a load generator counts as hung. */
const TIMEOUT_SLACK_MS = 120_000;
/** A fill is sized in ops, not time: even 1,000 ops/s must be able to finish. */
const FILL_OPS_PER_SECOND_FLOOR = 1000;

/**
 * Runs load-generator.js as its own process against `port` and returns its
 * report. Any error answer fails the bench: a figure measured while the
 * server refused requests would not describe the server.
 */
export async function runLoad(
  target: LoadReport['target'],
  port: number,
  mode: LoadMode,
  context: BenchContext,
  /** More load-generator flags (`--accounts`). */
  extraArgs: readonly string[] = [],
): Promise<LoadReport> {
  const { options } = context;
  const args = [
    '--target',
    target,
    '--port',
    String(port),
    '--connections',
    String(options.connections),
    '--depth',
    String(options.depth),
    '--payload-bytes',
    String(options.payloadBytes),
    '--warmup-ms',
    String(options.warmupMs),
    '--duration-ms',
    String(options.durationMs),
    '--drain-ms',
    String(OPEN_LOOP_DRAIN_MS),
  ];
  if (mode.kind === 'open') args.push('--rate', String(mode.ratePerSecond));
  if (mode.kind === 'fixed') args.push('--requests', String(mode.requests));
  args.push(...extraArgs);
  const plannedMs =
    mode.kind === 'fixed'
      ? (mode.requests * 1000) / FILL_OPS_PER_SECOND_FLOOR
      : options.warmupMs + options.durationMs + OPEN_LOOP_DRAIN_MS;
  const report = await runBenchChild<LoadReport>(context.build, 'load-generator', args, {
    env: { ONCE_ADMIN_PASSWORD: context.adminPassword },
    timeoutMs: plannedMs + TIMEOUT_SLACK_MS,
  });
  if (report.errors > 0) {
    throw new Error(`load-generator ${args.join(' ')}: ${report.errors} requests failed`);
  }
  return report;
}
