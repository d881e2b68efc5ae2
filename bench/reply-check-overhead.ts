import { type BenchContext } from './bench-context';
import { withFreshOnceService } from './fresh-once-service';
import { type LoadReport } from './load-report';
import { runLoad } from './load-runner';

/** The once closed loop twice more, side by side: with reply checks on, and off. */
export interface ReplyChecksRuns {
  /** `ONCE_REPLY_CHECKS=on` (the service's default). */
  readonly replyChecksOn: LoadReport;
  /** `ONCE_REPLY_CHECKS=off`: no REPLY_CHECK entry journaled after each group commit. */
  readonly replyChecksOff: LoadReport;
}

/**
 * The reply-checks measurement of a run: the same closed loop as the once
 * figure, once with `ONCE_REPLY_CHECKS=on` and once with `off`, back to back,
 * each on a fresh data directory of its own and otherwise alike, so that the
 * setting is their only difference. Even runs measure checks on first, odd
 * runs off first. On over off is `ratio_reply_check_on_vs_off`.
 */
export async function measureReplyChecks(
  context: BenchContext,
  index: number,
): Promise<ReplyChecksRuns> {
  let replyChecksOn: LoadReport | undefined;
  if (index % 2 === 0) replyChecksOn = await measureOnceWithReplyChecks(context, index, 'on');
  const replyChecksOff = await measureOnceWithReplyChecks(context, index, 'off');
  replyChecksOn ??= await measureOnceWithReplyChecks(context, index, 'on');
  return { replyChecksOn, replyChecksOff };
}

async function measureOnceWithReplyChecks(
  context: BenchContext,
  index: number,
  replyChecks: 'on' | 'off',
): Promise<LoadReport> {
  const env = { ONCE_REPLY_CHECKS: replyChecks };
  return withFreshOnceService(
    context,
    `reply-checks-${replyChecks}-${index}`,
    env,
    async (service) => {
      const load = await runLoad('once', service.port, { kind: 'closed' }, context);
      context.log(
        `  once closed loop, reply checks ${replyChecks}: ${Math.round(load.requestsPerSecond)} req/s`,
      );
      return load;
    },
  );
}
