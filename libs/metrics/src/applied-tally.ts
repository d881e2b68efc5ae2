import { type ApplyOutcome } from '@once/engine/internal';
import { EntryKind } from '@once/journal';
import { Command, EVICTION_REASON_NAMES, STATUS_NAMES, Status } from '@once/protocol';
import { Offset } from '@once/protocol/internal';

/** The first body byte after `{"ok":` in an outcome body: `t` for true, `f` for a refusal. */
const OK_VALUE_INDEX = 6;
const LETTER_F = 0x66;
/** Status codes of the tally beyond the protocol's u16 statuses. */
const REFUSED = 0x1_0000;
const EVICTION = 0x1_0001;
/** A commit's key: `kind * KIND_FACTOR + code`, a number, so counting allocates nothing. */
const KIND_FACTOR = 0x10_0000;

/** The `operation` label of the entry kinds that answer a client. */
const OPERATION_LABELS: ReadonlyMap<number, string> = new Map([
  [EntryKind.Command, 'command'],
  [EntryKind.Logout, 'logout'],
  [EntryKind.Register, 'register'],
]);

/**
 * Counts of what applied, kept as plain numbers on the apply path and turned
 * into Prometheus counters only when scraped: per applied entry it costs a
 * few byte reads and one map increment under a numeric key, no label
 * hashing, no allocation once every key was seen.
 *
 * Commits are keyed by operation and by the status of the reply the client
 * gets: the protocol's status name (`OK`, `EPOCH_AHEAD`, `REQUEST_GAP`, …),
 * `REFUSED` for an OK reply whose body says `"ok":false` (a committed
 * refusal), `EVICTION` for an EVICTION frame. Entries no client waits on
 * (system commands, releases, boots) are not commits here.
 */
export class AppliedTally {
  /** `kind * KIND_FACTOR + code` → count. */
  private readonly commits = new Map<number, number>();
  /** Eviction reason (its protocol code) → sessions ended for it. */
  private readonly evictions = new Map<number, number>();

  record(outcome: ApplyOutcome): void {
    const reply = outcome.reply;
    if (reply !== undefined) {
      const kind = outcome.entry.kind;
      if (kind === EntryKind.Command || kind === EntryKind.Logout || kind === EntryKind.Register) {
        const key = kind * KIND_FACTOR + codeOf(reply, outcome.result);
        this.commits.set(key, (this.commits.get(key) ?? 0) + 1);
      }
    }
    for (const ended of outcome.endedSessions) {
      this.evictions.set(ended.reason, (this.evictions.get(ended.reason) ?? 0) + 1);
    }
  }

  /** The commit counts as `[operation, status, count]`. */
  *commitRows(): IterableIterator<[string, string, number]> {
    for (const [key, count] of this.commits) {
      const kind = Math.floor(key / KIND_FACTOR);
      const operation = OPERATION_LABELS.get(kind) ?? `kind_${kind}`;
      yield [operation, statusName(key % KIND_FACTOR), count];
    }
  }

  /** The eviction counts as `[reason, count]`, reasons by their protocol names. */
  *evictionRows(): IterableIterator<[string, number]> {
    for (const [reason, count] of this.evictions) {
      yield [EVICTION_REASON_NAMES[reason as keyof typeof EVICTION_REASON_NAMES], count];
    }
  }
}

function codeOf(reply: Buffer, result: Buffer | undefined): number {
  if ((reply[Offset.command] as Command) === Command.Eviction) return EVICTION;
  const status = reply.readUInt16LE(Offset.status) as Status;
  if (status === Status.Ok && result !== undefined && result[OK_VALUE_INDEX] === LETTER_F) {
    return REFUSED;
  }
  return status;
}

function statusName(code: number): string {
  if (code === REFUSED) return 'REFUSED';
  if (code === EVICTION) return 'EVICTION';
  return STATUS_NAMES[code as Status] ?? `STATUS_${code}`;
}
