import { ClientTable } from '@once/client-table';
import {
  EntryKind,
  type EntryDraft,
  InvalidEntryError,
  type JournalEntry,
  type JournalStore,
} from '@once/journal';
import {
  type ClientId,
  Command,
  EvictionReason,
  Operation,
  Status,
  ZERO_CHECKSUM,
  ZERO_CLIENT_ID,
  HEADER_SIZE,
  encodeFrame,
  errorBody,
  errorBodyText,
  mintResumeToken,
  okBody,
  okBodyText,
} from '@once/protocol';
import { type AdmissionContext } from './admission-context';
import { type ApplyContext, SYSTEM_USER_ID } from './apply-context';
import { type ApplyOutcome, type EndedSession, type RegisteredSession } from './apply-outcome';
import { CommandError, EngineRefusal } from './command.error';
import { decodeCommandBody, encodeCommandBody } from './command-body';
import { type CommandRegistry } from './command-registry';
import {
  type EngineSettings,
  GENESIS_SETTINGS,
  sameSettings,
  validateSettings,
} from './engine-settings';
import { decodeEngineSnapshot, encodeEngineSnapshot } from './engine-snapshot-codec';
import { type EngineLogger, SILENT_LOGGER } from './engine-logger';
import { ApplyOrderError } from './apply-order.error';
import { EngineUnavailableError } from './engine-unavailable.error';
import { type StateRegistry } from './state-registry';

export interface EngineOptions {
  readonly journal: JournalStore;
  readonly commands: CommandRegistry;
  readonly states: StateRegistry;
  /** Take a snapshot every this many applied ops (0: only at a graceful stop). Default 100000. */
  readonly snapshotEveryOps?: number;
  readonly logger?: EngineLogger;
}

/**
 * `replaying`: the journal is being applied, nothing is served.
 * `settling`: replay is done; the node journals what boot requires (settings, releases, genesis).
 * `ready`: serving. `stopping`: draining for a graceful stop. `failed`: fail-stop after a journal write failure.
 */
export type EnginePhase =
  'created' | 'replaying' | 'settling' | 'ready' | 'stopping' | 'stopped' | 'failed';

/** Called with the outcome of the one entry a caller submitted, once it is durable and applied. */
export type OutcomeCallback = (outcome: ApplyOutcome) => void;

const NO_ENDED: readonly EndedSession[] = Object.freeze([]);

/**
 * The apply path: the only code that changes the client table and the module
 * states, used by live commits and by replay alike.
 *
 * Invariants:
 * - entries are applied exactly once each, in op order, contiguously
 *   (`entry.op === commitOp + 1`);
 * - an outcome is a function of the entry and the state before it (no clock,
 *   no randomness, no I/O), so a replay rebuilds every cached reply byte for byte;
 * - nothing is applied before it is durable: the live path applies only what
 *   the journal reports as synced.
 */
export class Engine {
  readonly journal: JournalStore;
  readonly commands: CommandRegistry;
  readonly states: StateRegistry;
  private readonly logger: EngineLogger;
  private readonly snapshotEveryOps: number;
  private readonly genesisStates: Array<[string, string]>;

  private tableValue: ClientTable;
  /**
   * Sessions that expired, newest last, at most `clientsMax` of them: a later
   * request of such a client is told EXPIRED rather than NO_SESSION. Changed
   * only by apply, kept in snapshots.
   */
  private expired = new Map<ClientId, number>();
  private settingsValue: EngineSettings = GENESIS_SETTINGS;
  private phaseValue: EnginePhase = 'created';
  /** Highest op applied. */
  private commitOpValue = 0;
  private commitTimestampValue = 0n;
  private lastSnapshotOp = 0;
  /** While replaying with nobody watching outcomes: cached replies are encoded on first read. */
  private deferReplies = false;
  private snapshotWrite: Promise<void> | undefined;
  private failure: Error | undefined;

  private readonly waiting = new Map<number, OutcomeCallback>();
  private readonly appliedListeners = new Set<(outcome: ApplyOutcome) => void>();
  private readonly phaseListeners = new Set<(phase: EnginePhase) => void>();
  private unsubscribeJournal: (() => void)[] = [];

  constructor(options: EngineOptions) {
    this.journal = options.journal;
    this.commands = options.commands;
    this.states = options.states;
    this.logger = options.logger ?? SILENT_LOGGER;
    this.snapshotEveryOps = options.snapshotEveryOps ?? 100_000;
    this.tableValue = new ClientTable({
      capacity: GENESIS_SETTINGS.clientsMax,
      ring: GENESIS_SETTINGS.ring,
    });
    this.genesisStates = this.states.snapshot();
  }

  get table(): ClientTable {
    return this.tableValue;
  }
  get settings(): EngineSettings {
    return this.settingsValue;
  }
  get phase(): EnginePhase {
    return this.phaseValue;
  }
  get ready(): boolean {
    return this.phaseValue === 'ready';
  }
  /** Highest op applied: every reply's `commit` when it is not a replicated reply. */
  get commitOp(): number {
    return this.commitOpValue;
  }
  get commitTimestamp(): bigint {
    return this.commitTimestampValue;
  }

  /**
   * Replay mode: outcomes carry no reply bytes and the table encodes cached
   * replies lazily. The replies are the same bytes, computed later or never.
   */
  setDeferredReplies(deferred: boolean): void {
    this.deferReplies = deferred;
  }

  setPhase(phase: EnginePhase): void {
    if (this.phaseValue === phase) return;
    if (this.phaseValue === 'failed' || this.phaseValue === 'stopped') return;
    this.phaseValue = phase;
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

  // ---------------------------------------------------------------- apply path

  /** THE apply function. Live commits and replay both call exactly this. */
  apply(entry: JournalEntry): ApplyOutcome {
    if (entry.op !== this.commitOpValue + 1) {
      throw new ApplyOrderError(entry.op, this.commitOpValue);
    }
    const ended: EndedSession[] = [];
    this.expireIdleSessions(entry, ended);
    let outcome: ApplyOutcome;
    switch (entry.kind) {
      case EntryKind.Register:
        outcome = this.applyRegister(entry, ended);
        break;
      case EntryKind.Logout:
        outcome = this.applyLogout(entry, ended);
        break;
      case EntryKind.Command:
        outcome =
          entry.client === ZERO_CLIENT_ID
            ? this.applySystemCommand(entry, ended)
            : this.applyCommand(entry, ended);
        break;
      case EntryKind.Release:
        this.states.releaseClient(entry.client, this.contextOf(entry));
        outcome = quiet(entry, ended);
        break;
      case EntryKind.Boot:
        outcome = this.applyBoot(entry, ended);
        break;
      default:
        throw new ApplyOrderError(
          entry.op,
          this.commitOpValue,
          `unknown entry kind ${String(entry.kind)}`,
        );
    }
    this.commitOpValue = entry.op;
    this.commitTimestampValue = entry.timestamp;
    return outcome;
  }

  private applyRegister(entry: JournalEntry, ended: EndedSession[]): ApplyOutcome {
    const result = this.tableValue.commitRegister(
      entry.op,
      entry.timestamp,
      entry.client,
      entry.userId,
    );
    if (result.kind === 'registered') this.expired.delete(entry.client);
    if (result.kind === 'owned-by-other-user') {
      const reply = encodeFrame(
        {
          command: Command.Reply,
          operation: Operation.Register,
          status: Status.ClientOwnedByOtherUser,
          client: entry.client,
          resumeToken: entry.requestChecksum,
          op: entry.op,
          commit: entry.op,
          timestamp: entry.timestamp,
        },
        errorBody('CLIENT_OWNED_BY_OTHER_USER', 'this client id belongs to another user’s session'),
      );
      return { ...quiet(entry, ended), reply };
    }
    if (result.evicted) {
      this.endSession(entry, result.evicted, EvictionReason.Evicted, ended);
    }
    if (result.previousEpoch !== undefined) {
      // A resume starts a new connection life: what the session held while its
      // previous connection lived is released, here, so replay agrees.
      this.states.releaseClient(entry.client, this.contextOf(entry));
    }
    const { epoch, watermark } = result;
    const resumeToken = mintResumeToken(this.journal.nodeSecret, entry.client, epoch);
    const body = JSON.stringify({
      userId: entry.userId,
      epoch,
      watermark,
      resumeToken: resumeToken.toString('hex'),
    });
    const reply = encodeFrame(
      {
        command: Command.Reply,
        operation: Operation.Register,
        status: Status.Ok,
        client: entry.client,
        session: epoch,
        resumeToken: entry.requestChecksum,
        op: entry.op,
        commit: entry.op,
        timestamp: entry.timestamp,
        watermark,
      },
      body,
    );
    const registered: RegisteredSession = {
      client: entry.client,
      epoch,
      userId: entry.userId,
      watermark,
      previousEpoch: result.previousEpoch,
    };
    return { ...quiet(entry, ended), reply, registered };
  }

  private applyLogout(entry: JournalEntry, ended: EndedSession[]): ApplyOutcome {
    const verdict = this.tableValue.applicable(entry.client, entry.session, entry.request);
    if (verdict !== 'ok') return this.refuseAtApply(entry, verdict, ended);
    const removed = this.tableValue.get(entry.client);
    if (removed) this.endSession(entry, removed, EvictionReason.LoggedOut, ended);
    const reply = replicatedReply(entry, Operation.Logout, okBody({}));
    return { ...quiet(entry, ended), reply };
  }

  private applyCommand(entry: JournalEntry, ended: EndedSession[]): ApplyOutcome {
    const verdict = this.tableValue.applicable(entry.client, entry.session, entry.request);
    if (verdict !== 'ok') return this.refuseAtApply(entry, verdict, ended);
    const resultText = this.runHandler(entry);
    const encode = (): Buffer => replicatedReply(entry, Operation.Command, resultText);
    // Replay: the ring drops most replies before anyone asks, so the table
    // keeps the encoder and builds a reply (the same bytes) when first read.
    const reply = this.deferReplies ? undefined : encode();
    this.tableValue.commitReply(
      entry.op,
      entry.timestamp,
      entry.client,
      entry.session,
      entry.request,
      entry.requestChecksum,
      reply ?? encode,
    );
    return { ...quiet(entry, ended), reply, cached: true, result: reply?.subarray(HEADER_SIZE) };
  }

  private applySystemCommand(entry: JournalEntry, ended: EndedSession[]): ApplyOutcome {
    return { ...quiet(entry, ended), result: Buffer.from(this.runHandler(entry)) };
  }

  private applyBoot(entry: JournalEntry, ended: EndedSession[]): ApplyOutcome {
    const settings = parseSettings(entry.body);
    if (settings) {
      this.settingsValue = settings;
      const evicted = this.tableValue.setLimits({
        capacity: settings.clientsMax,
        ring: settings.ring,
      });
      for (const victim of evicted) this.endSession(entry, victim, EvictionReason.Evicted, ended);
    } else {
      this.logger.error(
        `BOOT entry at op ${entry.op} carries unreadable settings; limits unchanged`,
      );
    }
    // After a restart no connection survives: whatever was held only while
    // connected is released, by this journaled entry, so replay agrees.
    for (const client of this.states.holders()) {
      this.states.releaseClient(client, this.contextOf(entry, client));
    }
    return quiet(entry, ended);
  }

  /** A COMMAND or LOGOUT that can no longer apply (fenced, evicted, …): answered, not cached. */
  private refuseAtApply(
    entry: JournalEntry,
    verdict: 'no-session' | 'session-too-low' | 'epoch-ahead' | 'not-next',
    ended: EndedSession[],
  ): ApplyOutcome {
    const watermark = this.tableValue.get(entry.client)?.watermark ?? 0;
    const operation = entry.kind === EntryKind.Logout ? Operation.Logout : Operation.Command;
    if (verdict === 'no-session' || verdict === 'session-too-low') {
      const reason =
        verdict === 'session-too-low'
          ? EvictionReason.SessionTooLow
          : this.goneReason(entry.client);
      const reply = encodeFrame({
        command: Command.Eviction,
        operation,
        status: reason,
        client: entry.client,
        session: entry.session,
        request: entry.request,
        commit: entry.op,
        watermark,
      });
      return { ...quiet(entry, ended), reply, eviction: reason };
    }
    const reply = encodeFrame(
      {
        command: Command.Reply,
        operation,
        status: verdict === 'epoch-ahead' ? Status.EpochAhead : Status.RequestGap,
        client: entry.client,
        session: entry.session,
        request: entry.request,
        resumeToken: entry.requestChecksum,
        commit: entry.op,
        watermark,
      },
      verdict === 'epoch-ahead'
        ? errorBody('EPOCH_AHEAD', 'the session epoch is newer than the table’s')
        : errorBody('REQUEST_GAP', `the next request number is ${watermark + 1}`),
    );
    return { ...quiet(entry, ended), reply };
  }

  /** Runs the command's handler; returns the outcome body (JSON text). Never throws. */
  private runHandler(entry: JournalEntry): string {
    const body = decodeCommandBody(entry.body);
    if (!body) {
      return errorBodyText(
        EngineRefusal.InvalidEntry,
        `entry at op ${entry.op} is not a command body`,
      );
    }
    if (body.refusal) return errorBodyText(body.refusal.code, body.refusal.message);
    const handler = this.commands.get(body.pattern);
    if (!handler) {
      return errorBodyText(
        EngineRefusal.UnknownPattern,
        `no command handler for pattern "${body.pattern}"`,
      );
    }
    try {
      const result: unknown = handler.apply(body.data, this.contextOf(entry));
      if (isThenable(result)) {
        result.then(undefined, () => undefined);
        return errorBodyText(
          EngineRefusal.AsyncHandler,
          `handler for "${body.pattern}" returned a promise; command handlers must be synchronous`,
        );
      }
      return okBodyText(result);
    } catch (error) {
      if (error instanceof CommandError) return errorBodyText(error.code, error.message);
      const message = error instanceof Error ? error.message : String(error);
      if (this.phaseValue === 'ready') {
        this.logger.error(`handler for "${body.pattern}" failed at op ${entry.op}: ${message}`);
      }
      return errorBodyText(EngineRefusal.HandlerFailed, message);
    }
  }

  private expireIdleSessions(entry: JournalEntry, ended: EndedSession[]): void {
    const ttlMs = this.settingsValue.sessionTtlMs;
    if (ttlMs === 0) return;
    const cutoff = entry.timestamp - BigInt(ttlMs) * 1_000_000n;
    if (cutoff <= 0n) return;
    for (const expired of this.tableValue.expireBefore(cutoff)) {
      this.rememberExpired(expired.client, expired.epoch);
      this.states.releaseClient(expired.client, this.contextOf(entry, expired.client));
      ended.push({
        client: expired.client,
        epoch: expired.epoch,
        userId: expired.userId,
        watermark: expired.watermark,
        reason: EvictionReason.Expired,
      });
    }
  }

  private rememberExpired(client: ClientId, epoch: number): void {
    this.expired.delete(client);
    this.expired.set(client, epoch);
    const excess = this.expired.size - this.settingsValue.clientsMax;
    if (excess > 0) {
      const oldest = [...this.expired.keys()].slice(0, excess);
      for (const key of oldest) this.expired.delete(key);
    }
  }

  /** Why `client` has no session: EXPIRED if it expired (and was not registered since), else NO_SESSION. */
  goneReason(client: ClientId): EvictionReason.Expired | EvictionReason.NoSession {
    return this.expired.has(client) ? EvictionReason.Expired : EvictionReason.NoSession;
  }

  private endSession(
    entry: JournalEntry,
    session: { client: ClientId; epoch: number; userId: number; watermark: number },
    reason: EvictionReason.Evicted | EvictionReason.LoggedOut,
    ended: EndedSession[],
  ): void {
    if (reason === EvictionReason.LoggedOut) this.tableValue.remove(session.client);
    this.states.releaseClient(session.client, this.contextOf(entry, session.client));
    ended.push({
      client: session.client,
      epoch: session.epoch,
      userId: session.userId,
      watermark: session.watermark,
      reason,
    });
  }

  private contextOf(entry: JournalEntry, client: ClientId = entry.client): ApplyContext {
    return {
      op: entry.op,
      timestamp: entry.timestamp,
      userId: client === entry.client ? entry.userId : SYSTEM_USER_ID,
      client,
    };
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
   * Journals `draft`; once it is durable it is applied and `callback` gets its
   * outcome. Returns the op assigned. Throws EngineUnavailableError when the
   * node cannot accept writes (failed, stopped).
   */
  submit(draft: EntryDraft, callback?: OutcomeCallback): number {
    if (this.failure || this.phaseValue === 'stopped' || this.phaseValue === 'failed') {
      throw new EngineUnavailableError(
        this.failure ? `journal failed: ${this.failure.message}` : 'engine is stopped',
      );
    }
    let op: number;
    try {
      op = this.journal.enqueue(draft).op;
    } catch (error) {
      if (error instanceof InvalidEntryError) throw error;
      throw new EngineUnavailableError(
        `the journal takes no writes: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    // The journal is fail-stop: onJournalFailure reports a failed write once.
    if (callback) this.waiting.set(op, callback);
    return op;
  }

  /**
   * Prepares a command for the journal: runs its admission step (if any) and
   * encodes the entry body. `rawBody` (the request's own JSON) is journaled
   * as-is when no admission step transforms it.
   */
  async prepareCommand(
    pattern: string,
    data: unknown,
    ctx: AdmissionContext,
    rawBody?: Buffer,
  ): Promise<Buffer> {
    const handler = this.commands.get(pattern);
    if (!handler?.admit) return rawBody ?? encodeCommandBody({ pattern, data });
    try {
      const admitted: unknown = await handler.admit(data, ctx);
      return encodeCommandBody({ pattern, data: admitted });
    } catch (error) {
      const refusal =
        error instanceof CommandError
          ? { code: error.code, message: error.message }
          : {
              code: 'ADMISSION_FAILED',
              message: error instanceof Error ? error.message : String(error),
            };
      return encodeCommandBody({ pattern, refusal });
    }
  }

  /**
   * Journals a command on the node's own behalf (client 0, user 0): genesis
   * data such as the first admin user. Resolves with the outcome body.
   */
  async submitSystemCommand(pattern: string, data: unknown): Promise<Buffer> {
    const body = await this.prepareCommand(pattern, data, {
      pattern,
      userId: SYSTEM_USER_ID,
      client: ZERO_CLIENT_ID,
    });
    return new Promise<Buffer>((resolve, reject) => {
      try {
        this.submit(systemDraft(EntryKind.Command, body), (outcome) =>
          resolve(outcome.result ?? okBody(null)),
        );
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /**
   * Journals a BOOT entry when the configured limits differ from those in
   * force or when connection-scoped holdings survived the restart. Resolves
   * once it applied (or at once when nothing was needed).
   */
  async settleBoot(desired: EngineSettings): Promise<void> {
    const settings = validateSettings(desired);
    const needed =
      !sameSettings(settings, this.settingsValue) ||
      this.commitOpValue === 0 ||
      this.states.holders().length > 0;
    if (!needed) {
      await this.recordSettingsInMeta();
      return;
    }
    if (!sameSettings(settings, this.settingsValue)) {
      this.logger.log(
        `limits change at op ${this.journal.lastOp + 1}: clientsMax ${this.settingsValue.clientsMax}→${settings.clientsMax}, ring ${this.settingsValue.ring}→${settings.ring}, sessionTtlMs ${this.settingsValue.sessionTtlMs}→${settings.sessionTtlMs}`,
      );
    }
    await new Promise<void>((resolve, reject) => {
      try {
        this.submit(systemDraft(EntryKind.Boot, Buffer.from(JSON.stringify(settings))), () =>
          resolve(),
        );
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    await this.recordSettingsInMeta();
  }

  /**
   * Mirrors the limits in force into the data directory's meta record, for
   * operators and tools; the journal's BOOT entries stay the authority.
   */
  private async recordSettingsInMeta(): Promise<void> {
    const inForce = this.settingsValue;
    const recorded = this.journal.meta.settings as EngineSettings | null;
    if (recorded && sameSettings(recorded, inForce)) return;
    await this.journal.updateSettings({ ...inForce, sinceOp: this.commitOpValue });
  }

  /** Journals that `client`'s connection ended, so what it held while connected is released. */
  submitRelease(client: ClientId): void {
    this.submit({ ...systemDraft(EntryKind.Release, Buffer.alloc(0)), client });
  }

  private onDurable(entries: readonly JournalEntry[]): void {
    for (const entry of entries) {
      const outcome = this.apply(entry);
      const callback = this.waiting.get(entry.op);
      if (callback) {
        this.waiting.delete(entry.op);
        this.notify(callback, outcome);
      }
      for (const listener of this.appliedListeners) this.notify(listener, outcome);
    }
    this.maybeSnapshot();
  }

  private notify(listener: (outcome: ApplyOutcome) => void, outcome: ApplyOutcome): void {
    try {
      listener(outcome);
    } catch (error) {
      this.logger.error(`an outcome listener failed at op ${outcome.entry.op}: ${String(error)}`);
    }
  }

  private onJournalFailure(error: Error): void {
    this.failure = error;
    this.waiting.clear();
    this.logger.error(
      `journal write failed, the node stops acknowledging writes: ${error.message}`,
    );
    this.setPhase('failed');
  }

  // ----------------------------------------------------------------- snapshots

  /** The whole replicated state at `commitOp`, deterministic bytes. */
  captureSnapshot(): Buffer {
    return encodeEngineSnapshot({
      op: this.commitOpValue,
      timestamp: this.commitTimestampValue,
      settings: this.settingsValue,
      expired: [...this.expired],
      table: this.tableValue.snapshot(),
      states: this.states.snapshot(),
    });
  }

  /**
   * Replaces the whole state with a snapshot. All or nothing: on any error the
   * engine is back at genesis (op 0) and the error is rethrown.
   */
  restoreSnapshot(payload: Buffer): number {
    try {
      const snapshot = decodeEngineSnapshot(payload);
      const table = ClientTable.restore(snapshot.table);
      const settings = validateSettings(snapshot.settings);
      this.states.restore(snapshot.states);
      this.tableValue = table;
      this.settingsValue = settings;
      this.expired = new Map(snapshot.expired);
      this.commitOpValue = snapshot.op;
      this.commitTimestampValue = snapshot.timestamp;
      this.lastSnapshotOp = snapshot.op;
      return snapshot.op;
    } catch (error) {
      this.resetToGenesis();
      throw error;
    }
  }

  resetToGenesis(): void {
    this.states.restore(this.genesisStates);
    this.tableValue = new ClientTable({
      capacity: GENESIS_SETTINGS.clientsMax,
      ring: GENESIS_SETTINGS.ring,
    });
    this.settingsValue = GENESIS_SETTINGS;
    this.expired = new Map();
    this.commitOpValue = 0;
    this.commitTimestampValue = 0n;
    this.lastSnapshotOp = 0;
  }

  /** Captures now, writes in the background; commits keep flowing meanwhile. */
  takeSnapshot(): Promise<void> {
    if (this.snapshotWrite) return this.snapshotWrite;
    const op = this.commitOpValue;
    const payload = this.captureSnapshot();
    this.lastSnapshotOp = op;
    const started = performance.now();
    const write = this.journal
      .saveSnapshot(op, payload)
      .then(
        () =>
          this.logger.log(
            `snapshot at op ${op} written (${payload.length} bytes, ${Math.round(performance.now() - started)} ms)`,
          ),
        (error: unknown) =>
          this.logger.warn(`snapshot at op ${op} could not be written: ${String(error)}`),
      )
      .finally(() => {
        this.snapshotWrite = undefined;
      });
    this.snapshotWrite = write;
    return write;
  }

  private maybeSnapshot(): void {
    if (
      this.snapshotEveryOps > 0 &&
      this.commitOpValue - this.lastSnapshotOp >= this.snapshotEveryOps
    ) {
      void this.takeSnapshot();
    }
  }

  /**
   * Graceful stop: no new writes, in-flight commits finish, a snapshot is
   * written, the journal closes.
   */
  async stop(options: { snapshot?: boolean } = {}): Promise<void> {
    if (this.phaseValue === 'stopped') return;
    const failed = this.phaseValue === 'failed';
    this.setPhase('stopping');
    while (!failed && this.journal.pendingCount > 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (this.snapshotWrite) await this.snapshotWrite;
    if (!failed && options.snapshot !== false && this.commitOpValue > this.lastSnapshotOp) {
      await this.takeSnapshot();
    }
    for (const unsubscribe of this.unsubscribeJournal) unsubscribe();
    this.unsubscribeJournal = [];
    const { batches, entries } = this.journal.writeStats;
    if (batches > 0) {
      this.logger.log(
        `journal: ${entries} entries in ${batches} synced batches since start (${(entries / batches).toFixed(1)} per batch)`,
      );
    }
    await this.journal.close();
    this.phaseValue = 'stopped';
    for (const listener of this.phaseListeners) listener('stopped');
  }
}

/**
 * The REPLY of an applied COMMAND or LOGOUT: every field from the entry
 * (PROTOCOL.md: `op` = `commit` = the entry's op, `timestamp` its journal
 * time, `watermark` its own request), so replay rebuilds it byte for byte.
 */
function replicatedReply(
  entry: JournalEntry,
  operation: Operation,
  body: Uint8Array | string,
): Buffer {
  return encodeFrame(
    {
      command: Command.Reply,
      operation,
      status: Status.Ok,
      client: entry.client,
      session: entry.session,
      request: entry.request,
      resumeToken: entry.requestChecksum,
      op: entry.op,
      commit: entry.op,
      timestamp: entry.timestamp,
      watermark: entry.request,
    },
    body,
  );
}

function quiet(entry: JournalEntry, ended: readonly EndedSession[]): ApplyOutcome {
  return {
    entry,
    reply: undefined,
    cached: false,
    eviction: undefined,
    result: undefined,
    registered: undefined,
    endedSessions: ended.length === 0 ? NO_ENDED : ended,
  };
}

function systemDraft(kind: EntryKind, body: Buffer): EntryDraft {
  return {
    kind,
    client: ZERO_CLIENT_ID,
    session: 0,
    request: 0,
    userId: SYSTEM_USER_ID,
    requestChecksum: ZERO_CHECKSUM,
    body,
  };
}

function parseSettings(body: Buffer): EngineSettings | undefined {
  try {
    return validateSettings(JSON.parse(body.toString('utf8')) as EngineSettings);
  } catch {
    return undefined;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
