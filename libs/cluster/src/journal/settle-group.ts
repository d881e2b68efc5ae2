import { JournalFailedError } from '@once/journal';
import { type AppendGroup, lastOpOf } from './append-group';
import { type GroupPublisher, type PublishOutcome } from './group-publisher';
import { JournalFencedError } from './journal-fenced.error';

/** First pause between two republishes; it doubles up to {@link RETRY_DELAY_MAX_MS}. */
const RETRY_DELAY_MIN_MS = 50;
const RETRY_DELAY_MAX_MS = 1_000;

/** What {@link settleGroup} needs besides the group. */
export interface Settlement {
  readonly publisher: GroupPublisher;
  /** How long to keep republishing. */
  readonly settleTimeoutMs: number;
  /** True once the pipeline failed meanwhile: settling stops, the group unsettled. */
  stopped(): boolean;
  /** Told of each republish as it is made. */
  republishing(): void;
}

/**
 * Settles a group whose publish failed, once every group before it is
 * stored: republishes the very same message (same id, same expectations)
 * until the stream answers for it, for at most `settleTimeoutMs`.
 *
 * - stored: done; a duplicate answer means an earlier publish had stored it
 *   (its ack was lost) and the stream kept it once;
 * - refused (the stream's end is not the group's predecessor): the message at
 *   the group's sequence decides. Ours: stored (the ack was lost and the
 *   duplicate check missed it). Someone else's: {@link JournalFencedError}.
 *   Nothing there yet: a proposal is still on its way through the stream's
 *   consensus, so ask again;
 * - lost (no answer, no leader during an election): ask again;
 * - fatal (connection closed): {@link JournalFailedError}.
 *
 * Gives up with {@link JournalFailedError} after `settleTimeoutMs`, which the
 * options keep well inside the stream's duplicate window: past it, a
 * republish could store the group twice. Resolves to whether an earlier
 * publish had stored the group (the stream answered duplicate, or holds it).
 */
export async function settleGroup(
  group: AppendGroup,
  settlement: Settlement,
  sleep: (ms: number) => Promise<void> = defaultSleep,
): Promise<{ readonly duplicate: boolean }> {
  const { publisher, settleTimeoutMs } = settlement;
  const deadline = Date.now() + settleTimeoutMs;
  let delayMs = RETRY_DELAY_MIN_MS;
  let attempts = 0;
  let lastError: Error | undefined;
  for (;;) {
    if (settlement.stopped()) return { duplicate: false };
    attempts++;
    settlement.republishing();
    const outcome: PublishOutcome = await publisher.publish(group);
    switch (outcome.kind) {
      case 'stored':
        assertStoredInPlace(group, outcome.seq, publisher.stream);
        group.stored = true;
        return { duplicate: outcome.duplicate };
      case 'refused': {
        lastError = outcome.error;
        const holder = await publisher.msgIdAt(group.seq).catch((error: unknown) => {
          lastError = error instanceof Error ? error : new Error(String(error));
          return undefined;
        });
        if (holder === group.msgId) {
          group.stored = true;
          return { duplicate: true };
        }
        if (typeof holder === 'string') {
          throw new JournalFencedError(
            publisher.stream,
            group.seq,
            group.firstOp,
            holder === '' ? 'a message without id' : `message ${holder}`,
          );
        }
        break;
      }
      case 'lost':
        lastError = outcome.error;
        break;
      case 'fatal':
        throw new JournalFailedError(outcome.error);
    }
    if (Date.now() + delayMs >= deadline) {
      throw new JournalFailedError(
        new Error(
          `ops ${group.firstOp}..${lastOpOf(group)} not acknowledged by stream ${publisher.stream} within ${settleTimeoutMs} ms (${attempts} publishes); last error: ${lastError?.message ?? 'none'}`,
        ),
      );
    }
    await sleep(delayMs);
    delayMs = Math.min(delayMs * 2, RETRY_DELAY_MAX_MS);
  }
}

/**
 * A group can only be stored right after its predecessor: anywhere else means
 * the stream and this writer disagree about what is in it, which no retry can
 * mend.
 */
export function assertStoredInPlace(group: AppendGroup, seq: number, stream: string): void {
  if (seq !== group.seq) {
    throw new JournalFailedError(
      new Error(
        `stream ${stream} reports ops ${group.firstOp}..${lastOpOf(group)} at sequence ${seq}, not ${group.seq}`,
      ),
    );
  }
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
