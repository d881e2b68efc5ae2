import { type JournalEntry } from '@once/journal/internal';
import { JournalFailedError } from '@once/journal';
import { type AppendGroup, lastOpOf, newAppendGroup } from './append-group';
import { type GroupPublisher, type PublishOutcome } from './group-publisher';
import { encodeGroupMessage } from './journal-message';
import { ListenerList } from './listener-list';
import { assertStoredInPlace, settleGroup } from './settle-group';

/** Limits of {@link AppendPipeline}; defaults live with the journal's options. */
export interface AppendPipelineLimits {
  /** Entries per group at most. */
  readonly groupEntriesMax: number;
  /** Payload bytes per group at most (a single larger entry still travels alone). */
  readonly groupBytesMax: number;
  /** Groups published and not yet settled, at most. */
  readonly groupsInFlightMax: number;
  /** How long a failed group is republished before the pipeline fails stop. */
  readonly settleTimeoutMs: number;
}

/** Where the stream ended when the writer opened. */
export interface StreamEnd {
  readonly seq: number;
  /** Message id of the message at `seq` (`undefined` when empty or it has none). */
  readonly msgId: string | undefined;
  /** Its last op (0 when the stream is empty). */
  readonly lastOp: number;
}

/**
 * Group commit over a JetStream stream, pipelined: entries are gathered into
 * groups (one message each), several groups are in flight at once, and each
 * predicts the sequence it lands at and the message it follows, so the stream
 * stores them in op order or refuses them.
 *
 * A group is sealed when it is full (entries or bytes) or, on the next tick,
 * when a publish slot is free; while every slot is taken it keeps growing, so
 * groups get larger exactly when the stream is the bottleneck.
 *
 * Groups are reported durable strictly in op order, each once, and only once
 * the stream acknowledged them. When a publish fails, publishing pauses; the
 * unsettled groups are settled one by one in op order ({@link settleGroup}:
 * republish the same message until the stream answers for it), then
 * publishing resumes. Fencing by another writer, a closed connection or a
 * group that stays unanswered fail the pipeline stop: nothing more is taken,
 * nothing pending is ever reported durable.
 */
export class AppendPipeline {
  #collecting: AppendGroup | undefined;
  /** Sealed groups waiting for a publish slot, in op order. */
  #sealed: AppendGroup[] = [];
  /** Published groups not yet reported durable, in op order. */
  #inFlight: AppendGroup[] = [];
  /** Sequence and message id of the last sealed group (or the stream's end). */
  #lastSeq: number;
  #lastMsgId: string | undefined;
  #nextOp: number;
  #durableOp: number;
  #pendingCount = 0;
  #batches = 0;
  #entries = 0;
  #groupsRepublished = 0;
  #republishes = 0;
  #duplicates = 0;
  #flushScheduled = false;
  #settling = false;
  #failure: Error | undefined;
  readonly #durableListeners = new ListenerList<readonly JournalEntry[]>();
  readonly #storedListeners = new ListenerList<AppendGroup>();
  readonly #failureListeners = new ListenerList<Error>();
  #idleWaiters: Array<() => void> = [];

  /**
   * @param writerId unique to this writer: part of every message id, so a
   *   republish is recognised as ours and never as another writer's
   */
  constructor(
    private readonly publisher: GroupPublisher,
    private readonly writerId: string,
    private readonly limits: AppendPipelineLimits,
    end: StreamEnd,
  ) {
    this.#lastSeq = end.seq;
    this.#lastMsgId = end.msgId;
    this.#nextOp = end.lastOp + 1;
    this.#durableOp = end.lastOp;
  }

  /** Highest op the stream acknowledged (or held at open). */
  get durableOp(): number {
    return this.#durableOp;
  }

  /** Entries added and not yet reported durable; 0 once failed. */
  get pendingCount(): number {
    return this.#pendingCount;
  }

  get writeStats(): { readonly batches: number; readonly entries: number } {
    return { batches: this.#batches, entries: this.#entries };
  }

  /**
   * Groups that had to be settled, the republishes made for them, and the
   * groups the stream turned out to hold already (their ack was lost): the
   * cost of leader changes and lost answers, for logs and tests.
   */
  get appendStats(): {
    readonly groupsRepublished: number;
    readonly republishes: number;
    readonly duplicates: number;
  } {
    return {
      groupsRepublished: this.#groupsRepublished,
      republishes: this.#republishes,
      duplicates: this.#duplicates,
    };
  }

  /** Groups published and not yet reported durable. */
  get groupsInFlight(): number {
    return this.#inFlight.length;
  }

  /** The error the pipeline stopped with. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /**
   * Queues `entry` (op `lastOp + 1`, exactly) with its encoding. The caller
   * checked {@link failure} first.
   */
  add(entry: JournalEntry, encoded: Buffer): void {
    if (entry.op !== this.#nextOp) {
      throw new Error(`invariant broken: op ${entry.op} added, op ${this.#nextOp} expected`);
    }
    this.#nextOp++;
    let group = this.#collecting;
    if (group !== undefined && group.bytes + encoded.byteLength > this.limits.groupBytesMax) {
      this.#seal(group);
      group = undefined;
    }
    group ??= this.#collecting = newAppendGroup(entry.op);
    group.entries.push(entry);
    group.encoded.push(encoded);
    group.bytes += encoded.byteLength;
    this.#pendingCount++;
    if (group.entries.length >= this.limits.groupEntriesMax) this.#seal(group);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => {
        this.#flushScheduled = false;
        this.#pump();
      });
    }
  }

  /** Calls `listener` with each stored group's entries, in op order, each once. */
  onDurable(listener: (entries: readonly JournalEntry[]) => void): () => void {
    return this.#durableListeners.add(listener);
  }

  /** Like {@link onDurable}, with each entry's encoding as stored (the group's, in op order). */
  onStored(
    listener: (entries: readonly JournalEntry[], encoded: readonly Buffer[]) => void,
  ): () => void {
    return this.#storedListeners.add((group) => listener(group.entries, group.encoded));
  }

  /** Calls `listener` once, with the error the pipeline stops with. */
  onFailure(listener: (error: Error) => void): () => void {
    return this.#failureListeners.add(listener);
  }

  /** Resolves once everything added is reported durable, or the pipeline failed. */
  whenIdle(): Promise<void> {
    if (this.#idle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #idle(): boolean {
    return this.#failure !== undefined || this.#pendingCount === 0;
  }

  /** Fixes the group's place in the stream and its message; it waits for a slot. */
  #seal(group: AppendGroup): void {
    this.#collecting = undefined;
    group.seq = ++this.#lastSeq;
    group.previousMsgId = this.#lastMsgId;
    group.msgId = `${this.writerId}:${group.firstOp}`;
    group.message = encodeGroupMessage(
      group.encoded,
      group.firstOp,
      group.seq,
      this.publisher.auth,
    );
    this.#lastMsgId = group.msgId;
    this.#sealed.push(group);
  }

  /** Publishes waiting groups (sealing the collecting one) while slots are free. */
  #pump(): void {
    while (
      this.#failure === undefined &&
      !this.#settling &&
      this.#inFlight.length < this.limits.groupsInFlightMax
    ) {
      if (this.#sealed.length === 0) {
        if (this.#collecting === undefined) return;
        this.#seal(this.#collecting);
      }
      const group = this.#sealed.shift()!;
      this.#inFlight.push(group);
      group.attempt = this.publisher
        .publish(group)
        .then((outcome) => this.#answered(group, outcome));
    }
  }

  #answered(group: AppendGroup, outcome: PublishOutcome): void {
    if (this.#failure !== undefined) return;
    if (outcome.kind !== 'stored') {
      // Settling re-examines this group in its turn; the first failure starts it.
      if (!this.#settling) {
        this.#settling = true;
        void this.#settle();
      }
      return;
    }
    try {
      assertStoredInPlace(group, outcome.seq, this.publisher.stream);
    } catch (error) {
      this.#fail(error as Error);
      return;
    }
    group.stored = true;
    if (outcome.duplicate) this.#duplicates++;
    if (this.#settling) return;
    this.#reportStored();
    this.#pump();
  }

  /**
   * Settles the in-flight groups in op order: each one's outstanding publish
   * is awaited, and one that did not store is republished until it is. Only
   * then is the next one looked at, so a refusal always means what it says.
   */
  async #settle(): Promise<void> {
    try {
      while (this.#inFlight.length > 0) {
        const group = this.#inFlight[0];
        await group.attempt;
        if (this.#failure !== undefined) return;
        if (!group.stored) {
          this.#groupsRepublished++;
          const report = await settleGroup(group, {
            publisher: this.publisher,
            settleTimeoutMs: this.limits.settleTimeoutMs,
            stopped: () => this.#failure !== undefined,
            republishing: () => this.#republishes++,
          });
          if (report.duplicate) this.#duplicates++;
        }
        if (this.#failure !== undefined) return;
        this.#reportStored();
      }
    } catch (error) {
      this.#fail(error instanceof Error ? error : new JournalFailedError(error));
      return;
    }
    this.#settling = false;
    this.#pump();
  }

  /** Reports the stored groups at the head of the in-flight list, in op order. */
  #reportStored(): void {
    while (this.#inFlight.length > 0 && this.#inFlight[0].stored) {
      const group = this.#inFlight.shift()!;
      const entries = group.entries;
      this.#durableOp = lastOpOf(group);
      this.#pendingCount -= entries.length;
      this.#batches++;
      this.#entries += entries.length;
      this.#durableListeners.emit(entries);
      this.#storedListeners.emit(group);
    }
    if (this.#pendingCount === 0) this.#wakeIdleWaiters();
  }

  #fail(error: Error): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    this.#collecting = undefined;
    this.#sealed = [];
    this.#inFlight = [];
    this.#pendingCount = 0;
    this.#failureListeners.emit(error);
    this.#wakeIdleWaiters();
  }

  #wakeIdleWaiters(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const wake of waiters) wake();
  }
}
