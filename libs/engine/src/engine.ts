import { settingDefault } from '@once/settings';
import { type ClientTable } from '@once/client-table/internal';
import { EntryKind, InvalidEntryError } from '@once/journal';
import { type EntryDraft, type Journal, type JournalEntry } from '@once/journal/internal';
import { type ClientId, type EvictionReason } from '@once/protocol';
import { ZERO_CLIENT_ID, okBody } from '@once/protocol/internal';
import { type AdmissionContext } from './admission-context';
import { SYSTEM_USER_ID } from './apply-context';
import { type ApplyOutcome } from './apply-outcome';
import { Applier } from './applier';
import { admitCommand, commandBodyAtOnce } from './command-admission';
import { type CommandBody } from './command-body';
import { type CommandHandler } from './command-handler';
import { type CommandRegistry } from './command-registry';
import { KeyedStore } from './keyed';
import { type EngineLogger, SILENT_LOGGER } from './engine-logger';
import { type BootSettlementOptions, journalAndWait, settleBootFor } from './boot-settlement';
import { type EngineSettings } from './engine-settings';
import { EngineUnavailableError } from './engine-unavailable.error';
import {
  type FailureCallback,
  type OutcomeCallback,
  PendingSubmissions,
  notify,
} from './pending-submissions';
import { responseOf } from './http/http-key-table';
import { HttpInFlight } from './http/http-in-flight';
import { httpAdmissionRefusal } from './http/http-admission-refusal';
import {
  type HttpRequestDraft,
  type HttpSubmitOptions,
  type HttpSubmitResult,
} from './http/http-request';
import { httpRequestEntryDraft, scopedKeyOf } from './http/http-request-body';
import { SnapshotScheduler } from './snapshot-scheduler';
import { type StateRegistry } from './state-registry';
import { systemDraft } from './system-draft';
import { SINGLE_NODE_ROLE, type WriteRole } from './write-role';

export { type FailureCallback, type OutcomeCallback } from './pending-submissions';

export interface EngineOptions {
  readonly journal: Journal;
  readonly commands: CommandRegistry;
  readonly states: StateRegistry;
  /** Take a snapshot every this many applied ops (0: only at a graceful stop). Default 100000. */
  readonly snapshotEveryOps?: number;
  /** Keyed records kept in memory beyond those changed since the last snapshot. Default: the setting's. */
  readonly keyedCacheEntries?: number;
  /** Bytes of keyed records kept in memory (off the JavaScript heap) beyond those changed since the last snapshot. Default: the setting's. */
  readonly keyedCacheBytes?: number;
  /** With keyed state, least time between two checkpoints (0: none; see {@link SnapshotScheduler}). Default: the setting's. */
  readonly checkpointIntervalMs?: number;
  readonly logger?: EngineLogger;
  /**
   * Journal a REPLY_CHECK entry with the checksums of the replies applied
   * since the last one, so that a replay or a follower that computes
   * another reply stops there (NONDETERMINISTIC_APPLY). It rides in the
   * group of the next write (no sync of its own; nothing is journaled while
   * the node is idle) and, on a single node, at a graceful stop, so only
   * the replies of the last group before a crash go unrecorded. Replay checks
   * the entries that exist either way. Default: true.
   */
  readonly replyChecks?: boolean;
}

/**
 * `replaying`: the journal is being applied, nothing is served.
 * `settling`: replay is done; the node journals what boot requires (settings, releases, genesis).
 * `ready`: serving. `stopping`: draining for a graceful stop. `failed`: fail-stop after a journal write failure.
 */
export type EnginePhase =
  'created' | 'replaying' | 'settling' | 'ready' | 'stopping' | 'stopped' | 'failed';

/**
 * The live node around the {@link Applier}: journals what callers submit,
 * applies what the journal reports durable (and only that: durable before
 * visible), hands each outcome to its submitter and to the listeners, takes
 * snapshots, settles boot, and stops. It changes no state itself; every
 * change goes through `applier.apply`, the function replay uses too.
 */
export class Engine {
  readonly journal: Journal;
  /** The apply path this engine drives; replay drives the same one. */
  readonly applier: Applier;
  private readonly logger: EngineLogger;
  private readonly snapshots: SnapshotScheduler;
  private readonly pending: PendingSubmissions;
  private phaseValue: EnginePhase = 'created';
  private failure: Error | undefined;
  private readonly appliedListeners = new Set<(outcome: ApplyOutcome) => void>();
  /**
   * Bodies of submitted COMMAND entries as admission parsed them, by op,
   * with the very entry object the journal returned and will report
   * durable: an entry from anywhere else (another leader's at that op) is
   * not that object and is decoded from its bytes.
   */
  private readonly decodedBodies = new Map<
    number,
    { readonly entry: JournalEntry; readonly body: CommandBody }
  >();
  private readonly phaseListeners = new Set<(phase: EnginePhase) => void>();
  private readonly termEndListeners = new Set<(error: Error) => void>();
  private unsubscribeJournal: (() => void)[] = [];
  private roleValue: WriteRole = SINGLE_NODE_ROLE;
  private readonly replyChecks: boolean;
  /** Why the node stopped applying (an entry this code cannot apply as it was); then it applies nothing more. */
  private applyFailure: Error | undefined;
  /** HTTP requests journaled by this node and not yet applied (see {@link submitHttp}). */
  private readonly httpInFlight = new HttpInFlight();

  constructor(options: EngineOptions) {
    this.journal = options.journal;
    this.logger = options.logger ?? SILENT_LOGGER;
    this.applier = new Applier({
      commands: options.commands,
      states: options.states,
      nodeSecret: options.journal.nodeSecret,
      logger: this.logger,
      keyed: new KeyedStore(
        options.journal.keyed,
        options.keyedCacheEntries ?? settingDefault('keyedCacheEntries'),
        options.keyedCacheBytes ?? settingDefault('keyedCacheBytes'),
      ),
    });
    this.snapshots = new SnapshotScheduler(
      this.journal,
      this.applier,
      options.snapshotEveryOps ?? settingDefault('snapshotEveryOps'),
      this.logger,
      options.checkpointIntervalMs ?? settingDefault('checkpointIntervalMs'),
    );
    this.pending = new PendingSubmissions(this.logger);
    this.replyChecks = options.replyChecks ?? true;
  }

  get commands(): CommandRegistry {
    return this.applier.commands;
  }
  get states(): StateRegistry {
    return this.applier.states;
  }
  get table(): ClientTable {
    return this.applier.table;
  }
  get settings(): EngineSettings {
    return this.applier.settings;
  }
  get phase(): EnginePhase {
    return this.phaseValue;
  }
  get ready(): boolean {
    return this.phaseValue === 'ready';
  }
  /** Highest op applied: every reply's `commit` when it is not a replicated reply. */
  get commitOp(): number {
    return this.applier.commitOp;
  }
  get commitTimestamp(): bigint {
    return this.applier.commitTimestamp;
  }

  /** Idempotency-Keys of HTTP requests remembered now (replicated state; a gauge). */
  get httpKeyCount(): number {
    return this.applier.httpKeys.size;
  }
  /** Idempotency-Keys forgotten early (the `httpKeysMax` bound) since this process started; a counter. */
  get httpEarlyForgets(): number {
    return this.applier.httpEarlyForgets;
  }
  /** HTTP requests this node journaled and has not applied yet. */
  get httpInFlightCount(): number {
    return this.httpInFlight.size;
  }

  /**
   * Op of the newest snapshot of this state's history as far as this node
   * knows (taken here, or restored at boot); 0 when there is none.
   */
  get lastSnapshotOp(): number {
    return this.snapshots.lastSnapshotOp;
  }
  /** Journal time (ns since the Unix epoch) of {@link lastSnapshotOp}'s entry; 0n when there is no snapshot. */
  get lastSnapshotTimestamp(): bigint {
    return this.snapshots.lastSnapshotTimestamp;
  }

  /** Whether this node may write, and what it is in its cluster (see {@link WriteRole}). */
  get role(): WriteRole {
    return this.roleValue;
  }

  /** Set once by a cluster node; a single node keeps {@link SINGLE_NODE_ROLE}. */
  setRole(role: WriteRole): void {
    this.roleValue = role;
  }

  /** See {@link Applier.setDeferredReplies}. */
  setDeferredReplies(deferred: boolean): void {
    this.applier.setDeferredReplies(deferred);
  }

  setPhase(phase: EnginePhase): void {
    if (this.phaseValue === phase) return;
    if (this.phaseValue === 'failed' || this.phaseValue === 'stopped') return;
    this.phaseValue = phase;
    // Handler crashes are news only while serving; replay would repeat old ones.
    this.applier.handlerFailureLog = phase === 'ready' ? this.logger : undefined;
    for (const listener of this.phaseListeners) listener(phase);
  }

  onPhase(listener: (phase: EnginePhase) => void): () => void {
    this.phaseListeners.add(listener);
    return () => this.phaseListeners.delete(listener);
  }

  /** Every live outcome, after the submitter's own callback. */
  onApplied(listener: (outcome: ApplyOutcome) => void): () => void {
    this.appliedListeners.add(listener);
    return () => this.appliedListeners.delete(listener);
  }

  /** THE apply function ({@link Applier.apply}); live commits and replay both reach exactly it. */
  apply(entry: JournalEntry): ApplyOutcome {
    return this.applier.apply(entry);
  }

  /** See {@link Applier.goneReason}. */
  goneReason(client: ClientId): EvictionReason.Expired | EvictionReason.NoSession {
    return this.applier.goneReason(client);
  }

  // ----------------------------------------------------------------- live path

  /** Starts applying what the journal makes durable. Called once, after replay. */
  attachToJournal(): void {
    if (this.unsubscribeJournal.length > 0) return;
    this.unsubscribeJournal.push(
      this.journal.onDurable((entries) => this.onDurable(entries)),
      this.journal.onFailure((error) => this.onJournalFailure(error)),
    );
  }

  /**
   * Journals `draft`; once it is durable it is applied and `onOutcome` gets
   * its outcome. If the journal fails before that, `onFailed` (when given)
   * gets the journal's error instead; either is called at most once, and a
   * caller without `onFailed` is simply never called back. Returns the op
   * assigned. Throws EngineUnavailableError when the node cannot accept
   * writes (failed, stopped), InvalidEntryError for a bad draft.
   *
   * `decoded` (a COMMAND draft only) spares apply a second JSON parse: it
   * must be exactly what `decodeCommandBody(draft.body)` returns, a value
   * nothing else holds or changes (the gateway gives it for a request
   * journaled byte for byte as sent, whose data no team code saw).
   */
  submit(
    draft: EntryDraft,
    onOutcome?: OutcomeCallback,
    onFailed?: FailureCallback,
    decoded?: CommandBody,
  ): number {
    const unavailable = this.unavailable();
    if (unavailable) throw unavailable;
    let op: number;
    try {
      if (this.replyChecks) this.journalReplyChecks(true);
      const entry = this.journal.enqueue(draft);
      op = entry.op;
      if (decoded) this.decodedBodies.set(op, { entry, body: decoded });
    } catch (error) {
      if (error instanceof InvalidEntryError) throw error;
      throw new EngineUnavailableError(
        `the journal takes no writes: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    // The journal is fail-stop: onJournalFailure reports a failed write once.
    if (onOutcome || onFailed) this.pending.add(op, onOutcome, onFailed);
    return op;
  }

  /** Why the node takes no writes now (failed, stopped), or undefined. */
  private unavailable(): EngineUnavailableError | undefined {
    if (this.failure || this.phaseValue === 'stopped' || this.phaseValue === 'failed') {
      return new EngineUnavailableError(
        this.failure ? `journal failed: ${this.failure.message}` : 'engine is stopped',
        this.failure ? { cause: this.failure } : undefined,
      );
    }
    return undefined;
  }

  /**
   * An HTTP request with an Idempotency-Key, exactly once. Admission, in
   * this order:
   * 1. the key table: the key is done, so the same fingerprint gets its
   *    first response (`replayed`), another one `mismatch`;
   * 2. the requests in flight: the same key being applied now, with the
   *    same fingerprint `in-flight` (or, with `waitInFlight`, its result
   *    once applied, `applied` told as `replayed`), with another one
   *    `mismatch`;
   * 3. else the request is journaled as one HTTP_REQUEST entry and resolves
   *    `applied` once it is durable and applied (or, should another node
   *    have journaled the key first, with what the apply step found:
   *    `replayed` or `mismatch`).
   *
   * Rejects with what {@link submit} throws when the node takes no writes
   * (EngineUnavailableError; InvalidEntryError for a fingerprint that is
   * not 16 bytes or a status that is not one), and with the journal's error
   * (or the end of the term) when the entry will not be applied on this
   * node's behalf; nothing was answered then, and a retry may apply it.
   */
  submitHttp(
    request: HttpRequestDraft,
    options: HttpSubmitOptions = {},
  ): Promise<HttpSubmitResult> {
    // First: the key table is read from the data directory, which a stopped node has closed.
    const unavailable = this.unavailable();
    if (unavailable) return Promise.reject(unavailable);
    const scopedKey = scopedKeyOf(request);
    const done = this.applier.httpKeys.get(scopedKey);
    if (done) {
      return Promise.resolve(
        done.fingerprint.equals(request.fingerprint)
          ? { kind: 'replayed', response: responseOf(done) }
          : { kind: 'mismatch' },
      );
    }
    const flying = this.httpInFlight.get(scopedKey);
    if (flying) {
      if (!flying.fingerprint.equals(request.fingerprint)) {
        return Promise.resolve({ kind: 'mismatch' });
      }
      return options.waitInFlight
        ? this.httpInFlight.wait(flying)
        : Promise.resolve({ kind: 'in-flight' });
    }
    // In flight from here: a retry that comes while the admission step runs is not admitted twice.
    this.httpInFlight.start(scopedKey, request.fingerprint);
    const handler = this.commands.get(request.pattern);
    if (handler?.admit) return this.admitHttp(request, scopedKey, handler);
    return this.journalHttp(request, scopedKey);
  }

  /**
   * The route's admission step (`@Admit`), run once, live, for a key seen
   * for the first time: what it returns is journaled as the request's data
   * (the fingerprint stays the request's own, so a retry is still known for
   * one when the step gives another value each time). A refusal is
   * answered and not journaled: a retry runs the step again.
   */
  private async admitHttp(
    request: HttpRequestDraft,
    scopedKey: string,
    handler: CommandHandler,
  ): Promise<HttpSubmitResult> {
    let data: unknown;
    try {
      const ctx = { pattern: request.pattern, userId: request.userId, client: ZERO_CLIENT_ID };
      data = await handler.admit!(request.data, ctx);
    } catch (error) {
      const refused = httpAdmissionRefusal(error, request, this.logger);
      this.httpInFlight.settle(scopedKey, refused);
      return refused;
    }
    return this.journalHttp({ ...request, data }, scopedKey);
  }

  /** Journals `request` (already in flight under `scopedKey`); resolves once it applied. */
  private journalHttp(request: HttpRequestDraft, scopedKey: string): Promise<HttpSubmitResult> {
    return new Promise((resolve, reject) => {
      const onFailed = (error: Error): void => {
        this.httpInFlight.fail(scopedKey, error);
        reject(error);
      };
      const onOutcome = (outcome: ApplyOutcome): void => {
        const result = httpResultOf(outcome);
        if (result instanceof Error) {
          onFailed(result);
          return;
        }
        this.httpInFlight.settle(scopedKey, result);
        resolve(result);
      };
      try {
        this.submit(httpRequestEntryDraft(request), onOutcome, onFailed);
      } catch (error) {
        onFailed(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** See {@link admitCommand}: the admission step, run once, live, before journaling. */
  prepareCommand(
    pattern: string,
    data: unknown,
    ctx: AdmissionContext,
    rawBody?: Buffer,
  ): Promise<Buffer> {
    return admitCommand(this.commands, pattern, data, ctx, rawBody, this.logger);
  }

  /**
   * {@link prepareCommand}'s body, at once, for a command without an
   * admission step; undefined for one with an admission step (see
   * {@link commandBodyAtOnce}).
   */
  prepareCommandAtOnce(pattern: string, data: unknown, rawBody?: Buffer): Buffer | undefined {
    return commandBodyAtOnce(this.commands, pattern, data, rawBody);
  }

  /**
   * Journals a command on the node's own behalf (client 0, user 0): genesis
   * data such as the first admin user. Resolves with the outcome body.
   */
  async submitSystemCommand(pattern: string, data: unknown): Promise<Buffer> {
    const outcome = await this.journalSystemCommand(pattern, data);
    return outcome.result ?? okBody(null);
  }

  /** Like {@link submitSystemCommand}, resolving with the whole outcome (its entry's op included). */
  async journalSystemCommand(pattern: string, data: unknown): Promise<ApplyOutcome> {
    const body = await this.prepareCommand(pattern, data, {
      pattern,
      userId: SYSTEM_USER_ID,
      client: ZERO_CLIENT_ID,
    });
    const draft = systemDraft(EntryKind.Command, body);
    return journalAndWait(this, draft, `the system command "${pattern}"`);
  }

  /**
   * See {@link settleBootFor}: journals a BOOT entry when boot requires one.
   * Resolves once it applied (at once when none was needed); rejects, naming
   * the cause, when the journal cannot take it.
   */
  settleBoot(desired: EngineSettings, options?: BootSettlementOptions): Promise<void> {
    return settleBootFor(this, desired, this.logger, options);
  }

  /** Journals that `client`'s connection ended, so what it held while connected is released. */
  submitRelease(client: ClientId): void {
    this.submit({ ...systemDraft(EntryKind.Release, Buffer.alloc(0)), client });
  }

  /**
   * A cluster node's leadership ended (its lease was lost, or the stream
   * refused an append): nothing it submitted and did not yet apply will be
   * applied on its behalf, so each submitter that waits hears `error`, as on
   * a journal failure. Unlike that failure the engine goes on applying what
   * the journal reports durable: the node continues as a follower.
   */
  endTerm(error: Error): void {
    this.pending.failAll(error);
    this.decodedBodies.clear();
    for (const listener of this.termEndListeners) {
      try {
        listener(error);
      } catch (listenerError) {
        this.logger.error(`a term-end listener failed: ${String(listenerError)}`);
      }
    }
  }

  /** Calls `listener` at each {@link endTerm}; returns the unsubscribe function. */
  onTermEnd(listener: (error: Error) => void): () => void {
    this.termEndListeners.add(listener);
    return () => this.termEndListeners.delete(listener);
  }

  private onDurable(entries: readonly JournalEntry[]): void {
    if (this.applyFailure) return;
    for (const entry of entries) {
      let outcome: ApplyOutcome;
      try {
        outcome = this.applier.apply(entry, this.decodedBodyOf(entry));
      } catch (error) {
        this.stopApplying(entry, error);
        return;
      }
      this.pending.settle(outcome);
      for (const listener of this.appliedListeners) notify(this.logger, listener, outcome);
    }
    this.snapshots.afterApply();
  }

  /**
   * An entry this node cannot apply as it was first applied (changed code,
   * a version it does not have): it applies nothing more, answers nothing
   * from the state it reached, takes no snapshot of it, and says why. A
   * restart with code that can apply it (or a replay that reaches the same
   * op) goes on from the journal, which holds every entry untouched.
   */
  private stopApplying(entry: JournalEntry, error: unknown): void {
    this.haltApplying(entry.op, error);
  }

  /**
   * Stops applying the journal before op `op`, for a reason found outside
   * the applier: a cluster node that meets a stream message it must not
   * trust (it does not verify under the cluster key) applies nothing of it
   * and nothing after it. Like an entry the code cannot apply, it is
   * reported by {@link stoppedApplying} (`code` and `op`) in health and
   * PING, and the node serves nothing more until restarted. Once only.
   */
  haltApplying(op: number, error: unknown): void {
    if (this.applyFailure) return;
    const failure = error instanceof Error ? error : new Error(String(error));
    this.applyFailure = failure;
    this.failure = failure;
    this.snapshots.close();
    this.decodedBodies.clear();
    this.pending.failAll(failure);
    const code = (failure as { code?: unknown }).code;
    this.logger.error(
      `stopped applying the journal at op ${op}${typeof code === 'string' ? ` (${code})` : ''}: ${failure.message}`,
    );
    this.setPhase('failed');
  }

  /**
   * Whether the next entry this node submits brings a REPLY_CHECK entry
   * ahead of it (replies applied and not yet recorded): a bound on queued
   * entries must count it.
   */
  get replyCheckDue(): boolean {
    return (
      this.replyChecks && this.applier.manifest !== undefined && this.applier.unchecked.newCount > 0
    );
  }

  /** Why the node stopped applying the journal, if it did (see {@link stopApplying}). */
  get stoppedApplying(): Error | undefined {
    return this.applyFailure;
  }

  /**
   * Journals the checksums of the replies applied since the last
   * REPLY_CHECK; `withNext`: ahead of the entry being submitted, so they
   * ride in its group with no sync of their own. Best effort: a journal that refuses
   * it now leaves those replies unrecorded (a replay then cannot check them).
   * Should the journal refuse `next`, it writes the check alone.
   */
  private journalReplyChecks(withNext: boolean): void {
    // Before any manifest is in force an older build may still apply this
    // journal (a cluster mid-upgrade): it could not read a REPLY_CHECK.
    if (this.applier.unchecked.newCount === 0 || this.applier.manifest === undefined) return;
    const body = this.applier.unchecked.encodeNew();
    if (!body) return;
    try {
      this.journal.enqueue(systemDraft(EntryKind.ReplyCheck, body), { withNext });
    } catch {
      // The submit that follows meets the same refusal and reports it.
    }
  }

  /**
   * At a graceful stop of a single node: the replies not yet recorded are.
   * A cluster's leader does not: its followers may have stopped at its
   * last op already, and an entry they never see would leave the nodes'
   * final states apart; the next leader's first group records what it finds
   * unrecorded.
   */
  private flushReplyChecks(): void {
    if (this.roleValue !== SINGLE_NODE_ROLE || this.failure) return;
    this.journalReplyChecks(false);
  }

  /** What admission decoded of `entry`'s body, when `entry` is the one it submitted. */
  private decodedBodyOf(entry: JournalEntry): CommandBody | undefined {
    if (this.decodedBodies.size === 0) return undefined;
    const known = this.decodedBodies.get(entry.op);
    if (known === undefined) return undefined;
    this.decodedBodies.delete(entry.op);
    return known.entry === entry ? known.body : undefined;
  }

  private onJournalFailure(error: Error): void {
    this.failure = error;
    this.snapshots.close();
    this.decodedBodies.clear();
    this.pending.failAll(error);
    this.logger.error(
      `journal write failed, the node stops acknowledging writes: ${error.message}`,
    );
    this.setPhase('failed');
  }

  // ----------------------------------------------------------------- snapshots

  /** The whole replicated state at `commitOp`, deterministic bytes. */
  captureSnapshot(): Buffer {
    return this.applier.captureSnapshot();
  }

  /** See {@link Applier.restoreSnapshot}; the restored snapshot is then the newest one. */
  restoreSnapshot(payload: Buffer): number {
    this.snapshots.forgetTaken();
    return this.applier.restoreSnapshot(payload);
  }

  resetToGenesis(): void {
    this.snapshots.forgetTaken();
    this.applier.resetToGenesis();
  }

  /** Captures now, writes in the background; commits keep flowing meanwhile. */
  takeSnapshot(): Promise<void> {
    return this.snapshots.take();
  }

  /**
   * Writes a snapshot at the commit op now, with the keyed records changed
   * since the last one, and rejects if it could not be written: what a
   * maintenance tool (`once snapshot`) calls. Never save
   * {@link captureSnapshot}'s bytes to the journal directly: a snapshot with
   * keyed state needs its records written in the same batch to be restorable.
   */
  writeSnapshot(): Promise<void> {
    return this.snapshots.takeOrFail();
  }

  /**
   * Graceful stop: no new writes, in-flight commits finish, a snapshot is
   * written, the journal closes.
   */
  async stop(options: { snapshot?: boolean } = {}): Promise<void> {
    if (this.phaseValue === 'stopped') return;
    const failed = this.phaseValue === 'failed';
    // Only a node that served records replies at its stop: a verification or
    // a maintenance replay writes nothing.
    const served = this.phaseValue === 'ready';
    this.setPhase('stopping');
    this.snapshots.close();
    if (served && this.replyChecks) this.flushReplyChecks();
    while (!failed && this.journal.pendingCount > 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await this.snapshots.settled();
    if (!failed && options.snapshot !== false) await this.snapshots.takeAtStop(served);
    for (const unsubscribe of this.unsubscribeJournal) unsubscribe();
    this.unsubscribeJournal = [];
    this.logWriteStats();
    await this.journal.close();
    this.phaseValue = 'stopped';
    for (const listener of this.phaseListeners) listener('stopped');
  }

  private logWriteStats(): void {
    const { batches, entries } = this.journal.writeStats;
    if (batches > 0) {
      this.logger.log(
        `journal: ${entries} entries in ${batches} synced batches since start (${(entries / batches).toFixed(1)} per batch)`,
      );
    }
  }
}

/** What `submitHttp` resolves with for the outcome of its entry; an Error if the outcome is not an HTTP request's. */
function httpResultOf(outcome: ApplyOutcome): HttpSubmitResult | Error {
  const http = outcome.http;
  if (!http) {
    return new Error(`the entry at op ${outcome.entry.op} applied is not an HTTP request`);
  }
  switch (http.kind) {
    case 'applied':
      return { kind: 'applied', response: http.response };
    case 'duplicate':
      return { kind: 'replayed', response: http.response };
    case 'mismatch':
      return { kind: 'mismatch' };
  }
}
