import { type ApplyOutcome } from '@once/engine';
import { EntryKind } from '@once/journal';
import { Command, EVICTION_REASON_NAMES, Offset, STATUS_NAMES, Status } from '@once/protocol';

/** The first body byte after `{"ok":` in an outcome body: `t` for true, `f` for a refusal. */
const OK_VALUE_INDEX = 6;
const LETTER_F = 0x66;

/** The `operation` label of the entry kinds that answer a client. */
const OPERATION_LABELS: Readonly<Partial<Record<EntryKind, string>>> = {
  [EntryKind.Command]: 'command',
  [EntryKind.Logout]: 'logout',
  [EntryKind.Register]: 'register',
};

/**
 * Counts of what applied, kept as plain numbers on the apply path and turned
 * into Prometheus counters only when scraped: per applied entry it costs a
 * few byte reads and one map increment, no label hashing, no allocation once
 * every key was seen.
 *
 * Commits are keyed by operation and by the status of the reply the client
 * gets: the protocol's status name (`OK`, `EPOCH_AHEAD`, `REQUEST_GAP`, …),
 * `REFUSED` for an OK reply whose body says `"ok":false` (a committed
 * refusal), `EVICTION` for an EVICTION frame. Entries no client waits on
 * (system commands, releases, boots) are not commits here.
 */
export class AppliedTally {
  /** `operation\u0000status` → count. */
  readonly commits = new Map<string, number>();
  /** Eviction reason name → sessions ended for it. */
  readonly evictions = new Map<string, number>();

  record(outcome: ApplyOutcome): void {
    const reply = outcome.reply;
    if (reply !== undefined) {
      const operation = OPERATION_LABELS[outcome.entry.kind];
      if (operation !== undefined) {
        const key = `${operation}\u0000${statusOf(reply, outcome.result)}`;
        this.commits.set(key, (this.commits.get(key) ?? 0) + 1);
      }
    }
    for (const ended of outcome.endedSessions) {
      const reason = EVICTION_REASON_NAMES[ended.reason];
      this.evictions.set(reason, (this.evictions.get(reason) ?? 0) + 1);
    }
  }

  /** The commit counts as `[operation, status, count]`. */
  *commitRows(): IterableIterator<[string, string, number]> {
    for (const [key, count] of this.commits) {
      const separator = key.indexOf('\u0000');
      yield [key.slice(0, separator), key.slice(separator + 1), count];
    }
  }
}

function statusOf(reply: Buffer, result: Buffer | undefined): string {
  if ((reply[Offset.command] as Command) === Command.Eviction) return 'EVICTION';
  const status = reply.readUInt16LE(Offset.status) as Status;
  if (status === Status.Ok && result !== undefined && result[OK_VALUE_INDEX] === LETTER_F) {
    return 'REFUSED';
  }
  return STATUS_NAMES[status] ?? `STATUS_${status}`;
}
