import { ClientTable, type ClientTableHeader } from '@once/client-table/internal';
import { EntryKind } from '@once/journal';
import { type JournalEntry } from '@once/journal/internal';
import { type ClientId, EvictionReason } from '@once/protocol';
import { mintResumeToken, okBody } from '@once/protocol/internal';
import * as protocol from '@once/protocol/internal';
import * as wire from '@once/protocol';
import { applyContextOf } from './apply-context';
import { ApplyOrderError } from './apply-order.error';
import {
  type ApplyOutcome,
  type EndedSession,
  type RegisteredSession,
  cachedReplyOutcome,
  quietOutcome,
} from './apply-outcome';
import { type CommandBody } from './command-body';
import {
  type CodeManifest,
  type CodeSupport,
  type ManifestVerdict,
  decodeManifest,
  encodeManifest,
  manifestOf,
  retiredUnder,
  unsupportedBy,
} from './code-manifest';
import { CommandNotProvidedError } from './command-not-provided.error';
import { type CommandRegistry } from './command-registry';
import { type EngineLogger, SILENT_LOGGER } from './engine-logger';
import {
  type EngineSettings,
  GENESIS_SETTINGS,
  decodeSettings,
  validateSettings,
} from './engine-settings';
import {
  decodeEngineSnapshot,
  encodeEngineSnapshot,
  snapshotKeepsSessionRecords,
} from './engine-snapshot-codec';
import { ExpiredSessions } from './expired-sessions';
import {
  type Dispatch,
  type HandlerRun,
  NO_MANIFEST_DISPATCH,
  newHandlerRun,
  runCommandHandler,
} from './handler-runner';
import { HttpKeyTable, responseOf } from './http/http-key-table';
import { type HttpApplied } from './http/http-request';
import { decodeHttpRequestBody, scopedKeyOf } from './http/http-request-body';
import { httpResponseOf, invalidHttpEntryResponse, reusedKeyResponse } from './http/http-response';
import { KeyedStore } from './keyed';
import { ModuleVersionUnsupportedError } from './module-version-unsupported.error';
import { NondeterministicApplyError } from './nondeterministic-apply.error';
import { UncheckedReplies, checkedChecksumOf, lastCheckedOp } from './reply-checks';
import { SessionRecords, type SessionRecordSet, tableFromRecords } from './session-records';
import { StateNotProvidedError } from './state-not-provided.error';
import {
  evictionAtApply,
  ownedByOtherUserReply,
  refusalAtApply,
  registerReply,
  replicatedReply,
} from './reply-frames';
import { type StateRegistry } from './state-registry';

/**
 * The protocol constants every applied command reads, read from the package once: in the built
 * CommonJS a named import from another package is read through a getter of the package's index at
 * every use, and applying a command runs per request.
 */
const { HEADER_SIZE, ZERO_CLIENT_ID } = protocol;
const { Operation } = wire;

export interface ApplierOptions {
  readonly commands: CommandRegistry;
  readonly states: StateRegistry;
  /** Signs the resume token of every REGISTER reply; the journal's node secret. */
  readonly nodeSecret: Buffer;
  /** For entries that cannot change anything (a BOOT with unreadable settings). */
  readonly logger?: EngineLogger;
  /** Where keyed states keep their records. Default: in memory only. */
  readonly keyed?: KeyedStore;
}

type SessionGone = 'no-session' | 'session-too-low';
type RequestRefused = 'epoch-ahead' | 'not-next';
/** A session's identity as it ends, from the table or from its expiry. */
type EndingSession = Omit<EndedSession, 'reason'>;

/**
 * The apply path: the only code that changes the client table, the module
 * states and the limits in force, called by live commits and by replay alike
 * (DESIGN.md: one apply path). It does no I/O, keeps no callbacks and knows
 * no phases, so nothing but the entries decides what it holds.
 *
 * Invariants:
 * - entries are applied exactly once each, in op order, contiguously
 *   (`entry.op === commitOp + 1`);
 * - an outcome is a function of the entry and the state before it (no clock,
 *   no randomness), so a replay rebuilds every cached reply byte for byte;
 * - whoever calls `apply` has made sure the entry is durable.
 */
export class Applier {
  readonly commands: CommandRegistry;
  readonly states: StateRegistry;
  /** The records of every keyed state: part of the state this applier holds, like the table. */
  readonly keyed: KeyedStore;
  /**
   * Where handler crashes are reported: set by the live node while it
   * serves, unset during replay (an old crash is not news at every boot).
   */
  handlerFailureLog: EngineLogger | undefined;
  private readonly nodeSecret: Buffer;
  private readonly logger: EngineLogger;
  /** What this code provides: the manifests it can apply entries under. */
  readonly support: CodeSupport;
  /** This code's own manifest: what boot journals when it differs from the one in force. */
  readonly codeManifest: CodeManifest;
  /**
   * Replies computed and not yet compared with a REPLY_CHECK entry (or,
   * live, not yet recorded in one).
   */
  readonly unchecked = new UncheckedReplies();
  /** Reused by every command run: what it learnt besides its reply. */
  private readonly run: HandlerRun = newHandlerRun();

  private tableValue = genesisTable();
  /** The table's sessions as keyed records, when the state has any (see {@link SessionRecords}). */
  private readonly sessionRecords: SessionRecords;
  private httpKeysValue: HttpKeyTable;
  /** Early forgets of Idempotency-Keys counted before the table was last replaced (restore, reset). */
  private earlierEarlyForgets = 0;
  private expired = new ExpiredSessions();
  private settingsValue: EngineSettings = GENESIS_SETTINGS;
  private commitOpValue = 0;
  private commitTimestampValue = 0n;
  private restoredOpValue = 0;
  private restoredTimestampValue = 0n;
  private manifestValue: CodeManifest | undefined;
  private dispatch: Dispatch;
  /** While replaying with nobody watching outcomes: cached replies are encoded on first read. */
  private deferReplies = false;

  constructor(options: ApplierOptions) {
    this.commands = options.commands;
    this.states = options.states;
    this.nodeSecret = options.nodeSecret;
    this.logger = options.logger ?? SILENT_LOGGER;
    this.keyed = options.keyed ?? new KeyedStore(undefined);
    this.states.bindKeyed(this.keyed);
    this.sessionRecords = new SessionRecords(this.keyed);
    this.sessionRecords.adopt(this.tableValue, false);
    this.httpKeysValue = new HttpKeyTable(this.keyed);
    this.states.captureGenesis();
    this.support = {
      states: this.states.codeVersions(),
      commands: new Set(this.commands.patterns),
      owners: this.commands.owners(),
      retiredStates: this.states.retired,
      retiredCommands: this.commands.retired,
    };
    this.codeManifest = manifestOf(this.support);
    this.dispatch = this.dispatchUnder(undefined);
  }

  get table(): ClientTable {
    return this.tableValue;
  }
  get settings(): EngineSettings {
    return this.settingsValue;
  }
  /** The Idempotency-Keys of HTTP requests remembered, with their responses (see {@link HttpKeyTable}). */
  get httpKeys(): HttpKeyTable {
    return this.httpKeysValue;
  }
  /**
   * Idempotency-Keys forgotten early (the `httpKeysMax` bound) by this
   * process's applier, replay included; for metrics.
   */
  get httpEarlyForgets(): number {
    return this.earlierEarlyForgets + this.httpKeysValue.earlyForgets;
  }
  /** Highest op applied. */
  get commitOp(): number {
    return this.commitOpValue;
  }
  /** Journal timestamp of {@link commitOp} (0n at genesis). */
  get commitTimestamp(): bigint {
    return this.commitTimestampValue;
  }
  /**
   * The code in force at {@link commitOp}: the last MANIFEST entry applied
   * (or restored); undefined for a journal that has none yet.
   */
  get manifest(): CodeManifest | undefined {
    return this.manifestValue;
  }
  /** Op of the snapshot the state was restored from; 0 when it was built from genesis. */
  get restoredOp(): number {
    return this.restoredOpValue;
  }
  /** Journal timestamp of {@link restoredOp} (0n when built from genesis). */
  get restoredTimestamp(): bigint {
    return this.restoredTimestampValue;
  }

  /**
   * Replay mode: outcomes carry no reply bytes and the table encodes cached
   * replies lazily. The replies are the same bytes, computed later or never.
   */
  setDeferredReplies(deferred: boolean): void {
    this.deferReplies = deferred;
  }

  /** Why `client` has no session: EXPIRED if it expired (and was not registered since), else NO_SESSION. */
  goneReason(client: ClientId): EvictionReason.Expired | EvictionReason.NoSession {
    return this.expired.has(client) ? EvictionReason.Expired : EvictionReason.NoSession;
  }

  // ---------------------------------------------------------------- apply path

  /**
   * THE apply function. Live commits and replay both call exactly this.
   *
   * `decoded`, for a COMMAND entry only, is what decoding its body gives,
   * known without decoding it: the live node parsed those very bytes at
   * admission and nothing has touched the value since (see
   * `Engine.submit`). Replay never has it; the outcome is the same either way.
   */
  apply(entry: JournalEntry, decoded?: CommandBody): ApplyOutcome {
    if (entry.op !== this.commitOpValue + 1) {
      throw new ApplyOrderError(entry.op, this.commitOpValue);
    }
    const ended: EndedSession[] = [];
    this.expireIdleSessions(entry, ended);
    // Like idle sessions: by the entry's journal time, before it applies.
    this.httpKeysValue.expire(entry.timestamp, this.settingsValue.httpKeyRetentionMs);
    const outcome = this.applyKind(entry, ended, decoded);
    this.commitOpValue = entry.op;
    this.commitTimestampValue = entry.timestamp;
    return outcome;
  }

  private applyKind(
    entry: JournalEntry,
    ended: EndedSession[],
    decoded: CommandBody | undefined,
  ): ApplyOutcome {
    switch (entry.kind) {
      case EntryKind.Register:
        return this.applyRegister(entry, ended);
      case EntryKind.Logout:
        return this.applyLogout(entry, ended);
      case EntryKind.Command:
        return entry.client === ZERO_CLIENT_ID
          ? this.applySystemCommand(entry, ended)
          : this.applyCommand(entry, ended, decoded);
      case EntryKind.Release:
        this.release(entry, entry.client);
        return quietOutcome(entry, ended);
      case EntryKind.Boot:
        return this.applyBoot(entry, ended);
      case EntryKind.Manifest:
        this.applyManifest(entry);
        return quietOutcome(entry, ended);
      case EntryKind.ReplyCheck:
        this.applyReplyCheck(entry);
        return quietOutcome(entry, ended);
      case EntryKind.HttpRequest:
        return { ...quietOutcome(entry, ended), http: this.applyHttpRequest(entry) };
      default:
        throw new ApplyOrderError(
          entry.op,
          this.commitOpValue,
          `unknown entry kind ${String(entry.kind)}`,
        );
    }
  }

  private applyRegister(entry: JournalEntry, ended: EndedSession[]): ApplyOutcome {
    const result = this.tableValue.commitRegister(
      entry.op,
      entry.timestamp,
      entry.client,
      entry.userId,
    );
    if (result.kind === 'owned-by-other-user') {
      return { ...quietOutcome(entry, ended), reply: ownedByOtherUserReply(entry) };
    }
    this.expired.forget(entry.client);
    if (result.evicted) this.endSession(entry, result.evicted, EvictionReason.Evicted, ended);
    if (result.previousEpoch !== undefined) {
      // A resume starts a new connection life: what the session held while its
      // previous connection lived is released, here, so replay agrees.
      this.release(entry, entry.client);
    }
    const { epoch, watermark } = result;
    const resumeToken = mintResumeToken(this.nodeSecret, entry.client, epoch);
    const registered: RegisteredSession = {
      client: entry.client,
      epoch,
      userId: entry.userId,
      watermark,
      previousEpoch: result.previousEpoch,
    };
    const reply = registerReply(entry, { epoch, watermark, resumeToken });
    return { ...quietOutcome(entry, ended), reply, registered };
  }

  private applyLogout(entry: JournalEntry, ended: EndedSession[]): ApplyOutcome {
    const verdict = this.tableValue.applicable(entry.client, entry.session, entry.request);
    if (verdict !== 'ok') return this.refuseAtApply(entry, verdict, ended);
    const removed = this.tableValue.get(entry.client);
    if (removed) this.endSession(entry, removed, EvictionReason.LoggedOut, ended);
    const reply = replicatedReply(entry, Operation.Logout, okBody({}));
    return { ...quietOutcome(entry, ended), reply };
  }

  private applyCommand(
    entry: JournalEntry,
    ended: EndedSession[],
    decoded: CommandBody | undefined,
  ): ApplyOutcome {
    const verdict = this.tableValue.applicable(entry.client, entry.session, entry.request);
    if (verdict !== 'ok') return this.refuseAtApply(entry, verdict, ended);
    const resultText = this.runHandler(entry, decoded);
    // Replay: the ring drops most replies before anyone asks, so the table
    // keeps an encoder and builds the reply (the same bytes) when first read.
    const reply = this.deferReplies
      ? undefined
      : replicatedReply(entry, Operation.Command, resultText);
    this.noteReply(entry, resultText, reply);
    this.tableValue.commitReply(
      entry.op,
      entry.timestamp,
      entry.client,
      entry.session,
      entry.request,
      entry.requestChecksum,
      reply ?? (() => replicatedReply(entry, Operation.Command, resultText)),
      // Only sent from here on, never changed: the table keeps it without a copy.
      'handed-over',
    );
    const result = reply?.subarray(HEADER_SIZE);
    return cachedReplyOutcome(entry, ended, reply, result);
  }

  private applySystemCommand(entry: JournalEntry, ended: EndedSession[]): ApplyOutcome {
    const text = this.runHandler(entry, undefined);
    this.noteReply(entry, text, undefined);
    return { ...quietOutcome(entry, ended), result: Buffer.from(text) };
  }

  /**
   * An HTTP_REQUEST entry. A key the table holds (a race admission could
   * not see: two nodes journaled it, or a new leader) changes nothing: the
   * same fingerprint gets the recorded response, another one a 422
   * IDEMPOTENCY_KEY_REUSED (recorded nowhere). Otherwise the apply step
   * runs exactly as a COMMAND's does, and its response is recorded under
   * the key with the entry's op and journal time.
   */
  private applyHttpRequest(entry: JournalEntry): HttpApplied {
    const request = decodeHttpRequestBody(entry.body);
    if (!request) {
      return { kind: 'applied', response: invalidHttpEntryResponse(entry.op), duplicate: false };
    }
    const scopedKey = scopedKeyOf(request);
    const known = this.httpKeysValue.get(scopedKey);
    if (known) {
      return known.fingerprint.equals(entry.requestChecksum)
        ? { kind: 'duplicate', response: responseOf(known), duplicate: true }
        : { kind: 'mismatch', response: reusedKeyResponse(entry.op), duplicate: true };
    }
    const text = this.runHandler(entry, { pattern: request.pattern, data: request.data });
    this.noteReply(entry, text, undefined);
    const response = httpResponseOf(this.run, request, entry.op);
    const forgotten = this.httpKeysValue.record(
      scopedKey,
      {
        op: entry.op,
        timestamp: entry.timestamp,
        // A copy: the entry's buffer may be a view of a whole batch read from disk.
        fingerprint: Buffer.from(entry.requestChecksum),
        status: response.status,
        body: response.body,
      },
      this.settingsValue.httpKeysMax,
    );
    if (forgotten > 0) this.noteEarlyForgets(forgotten);
    return { kind: 'applied', response, duplicate: false };
  }

  /**
   * Keys forgotten early: a retry of one would apply again. Logged live
   * only, and once in a while (the 1st, 2nd, 4th, 8th, …), not per key.
   */
  private noteEarlyForgets(forgotten: number): void {
    const log = this.handlerFailureLog;
    if (!log) return;
    const total = this.httpEarlyForgets;
    if (Math.clz32(total) === Math.clz32(total - forgotten)) return;
    log.warn(
      `${total} Idempotency-Keys forgotten early since start: more than httpKeysMax (${this.settingsValue.httpKeysMax}) were remembered, and a retry of a forgotten key would apply again; raise ONCE_HTTP_KEYS_MAX, or lower ONCE_HTTP_KEY_RETENTION_MS`,
    );
  }

  /** The handler of a COMMAND entry, under the code in force at its op (see {@link runCommandHandler}). */
  private runHandler(entry: JournalEntry, decoded: CommandBody | undefined): string {
    return runCommandHandler(
      this.commands,
      entry,
      this.handlerFailureLog,
      decoded,
      this.dispatch,
      this.run,
    );
  }

  /** Keeps the reply of the run just made for the next REPLY_CHECK, unless it is not the entry's own. */
  private noteReply(entry: JournalEntry, text: string, frame: Buffer | undefined): void {
    const run = this.run;
    if (!run.rebuilt) return;
    this.unchecked.add(entry.op, run.pattern, text, frame, run.state, this.dispatch.versions);
  }

  /**
   * A MANIFEST entry: the code in force from this op on. This code must
   * provide it (every state at its version or later, every command), or
   * have retired what it lacks; otherwise applying on would apply entries
   * under rules this code does not have, so it stops here.
   */
  private applyManifest(entry: JournalEntry): void {
    const manifest = decodeManifest(entry.body);
    const verdict = unsupportedBy(manifest, this.support);
    if (verdict) throw codeMismatch(entry.op, verdict, `the MANIFEST entry at op ${entry.op}`);
    this.setManifest(manifest);
  }

  private setManifest(manifest: CodeManifest | undefined): void {
    this.manifestValue = manifest;
    this.dispatch = this.dispatchUnder(manifest);
  }

  /**
   * What this code dispatches under `manifest`: its patterns, its versions,
   * and every pattern this code retired (by name, or with its state).
   */
  private dispatchUnder(manifest: CodeManifest | undefined): Dispatch {
    if (!manifest) return { ...NO_MANIFEST_DISPATCH, retired: this.commands.retired };
    const retired = new Set(this.commands.retired);
    for (const pattern of manifest.commands) {
      if (retiredUnder(manifest, this.support, pattern)) retired.add(pattern);
    }
    return {
      commands: manifest.commands,
      retired,
      versions: Object.freeze(Object.fromEntries(manifest.states)),
    };
  }

  /**
   * A REPLY_CHECK entry: the checksums of replies acknowledged before it.
   * Each reply this applier computed for one of those ops must be the same
   * (live it is, by construction; a replay or a follower running changed
   * code may differ, and stops here before anything it computed is served).
   */
  private applyReplyCheck(entry: JournalEntry): void {
    const body = entry.body;
    const differs = this.unchecked.firstDifference(body);
    if (differs !== undefined) {
      const computed = this.unchecked.find(differs)!;
      throw new NondeterministicApplyError({
        op: differs,
        pattern: computed.pattern,
        state: computed.state,
        versions: computed.versions,
        computedReply: computed.text,
        journaledChecksum: checkedChecksumOf(body, differs)!,
        computedChecksum: computed.checksum.toString('hex'),
        checkOp: entry.op,
      });
    }
    const last = lastCheckedOp(body);
    if (last > 0) this.unchecked.recordedThrough(last);
  }

  /** Releases what `client` held while connected, each state told its version in force. */
  private release(entry: JournalEntry, client: ClientId): void {
    const versions = this.dispatch.versions;
    this.states.releaseClient(
      client,
      applyContextOf(entry, client, versions),
      (state) => versions[state] ?? 1,
    );
  }

  private applyBoot(entry: JournalEntry, ended: EndedSession[]): ApplyOutcome {
    const settings = decodeSettings(entry.body);
    if (settings) {
      this.settingsValue = settings;
      const evicted = this.tableValue.setLimits({
        capacity: settings.clientsMax,
        ring: settings.ring,
      });
      for (const victim of evicted) this.endSession(entry, victim, EvictionReason.Evicted, ended);
      const forgotten = this.httpKeysValue.bound(settings.httpKeysMax);
      if (forgotten > 0) this.noteEarlyForgets(forgotten);
    } else {
      this.logger.error(
        `BOOT entry at op ${entry.op} carries unreadable settings; limits unchanged`,
      );
    }
    // After a restart no connection survives: whatever was held only while
    // connected is released, by this journaled entry, so replay agrees.
    for (const client of this.states.holders()) this.release(entry, client);
    return quietOutcome(entry, ended);
  }

  /** A COMMAND or LOGOUT that can no longer apply (fenced, evicted, …): answered, not cached. */
  private refuseAtApply(
    entry: JournalEntry,
    verdict: SessionGone | RequestRefused,
    ended: EndedSession[],
  ): ApplyOutcome {
    const watermark = this.tableValue.get(entry.client)?.watermark ?? 0;
    const operation = entry.kind === EntryKind.Logout ? Operation.Logout : Operation.Command;
    if (verdict === 'no-session' || verdict === 'session-too-low') {
      const reason =
        verdict === 'session-too-low'
          ? EvictionReason.SessionTooLow
          : this.goneReason(entry.client);
      const reply = evictionAtApply(entry, operation, reason, watermark);
      return { ...quietOutcome(entry, ended), reply, eviction: reason };
    }
    const reply = refusalAtApply(entry, operation, verdict, watermark);
    return { ...quietOutcome(entry, ended), reply };
  }

  /** Sessions idle past the TTL by `entry`'s journal time end before it applies. */
  private expireIdleSessions(entry: JournalEntry, ended: EndedSession[]): void {
    const ttlMs = this.settingsValue.sessionTtlMs;
    if (ttlMs === 0) return;
    const cutoff = entry.timestamp - BigInt(ttlMs) * 1_000_000n;
    if (cutoff <= 0n) return;
    for (const expired of this.tableValue.expireBefore(cutoff)) {
      this.expired.remember(expired.client, expired.epoch, this.settingsValue.clientsMax);
      this.release(entry, expired.client);
      ended.push(endedSession(expired, EvictionReason.Expired));
    }
  }

  private endSession(
    entry: JournalEntry,
    session: EndingSession,
    reason: EvictionReason.Evicted | EvictionReason.LoggedOut,
    ended: EndedSession[],
  ): void {
    if (reason === EvictionReason.LoggedOut) this.tableValue.remove(session.client);
    this.release(entry, session.client);
    ended.push(endedSession(session, reason));
  }

  // ----------------------------------------------------------------- snapshots

  /**
   * The whole replicated state at `commitOp`, deterministic bytes. With keyed
   * state it first stages the sessions changed since the last capture as
   * records (what the next checkpoint writes): the bytes depend only on the
   * state, not on when earlier captures were taken.
   */
  captureSnapshot(): Buffer {
    // First: the sessions written as records count in the marker.
    const sessions = this.sessionRecords.flush(this.tableValue);
    return encodeEngineSnapshot({
      op: this.commitOpValue,
      timestamp: this.commitTimestampValue,
      settings: this.settingsValue,
      expired: this.expired.toSnapshot(),
      table: sessions === undefined ? this.tableValue.snapshot() : Buffer.alloc(0),
      sessions,
      states: this.states.snapshot(),
      manifest: this.manifestValue ? encodeManifest(this.manifestValue) : undefined,
      keyed: this.keyed.marker(),
      httpKeys: this.httpKeysValue.size > 0 ? this.httpKeysValue.encode() : undefined,
    });
  }

  /**
   * Replaces the whole state with a snapshot; returns its op. All or nothing:
   * on any error the applier is back at genesis (op 0) and the error is rethrown.
   *
   * The snapshot's code must be this code's or older: its manifest in force
   * must be one this code provides (see {@link applyManifest}), and each
   * state it holds must be provided (or retired) at its version or later. A
   * state it does not hold (a module added since) starts empty at its op.
   */
  restoreSnapshot(payload: Buffer, sessionRecords?: SessionRecordSet): number {
    try {
      const snapshot = decodeEngineSnapshot(payload);
      const wholeTable =
        snapshot.sessions === undefined ? ClientTable.restore(snapshot.table) : undefined;
      const settings = validateSettings(snapshot.settings);
      const manifest = snapshot.manifest ? decodeManifest(snapshot.manifest) : undefined;
      if (manifest) {
        const verdict = unsupportedBy(manifest, this.support);
        if (verdict) throw codeMismatch(snapshot.op, verdict, `the snapshot at op ${snapshot.op}`);
      }
      // The records first: a state moved to keyed records writes its old picture into them.
      this.keyed.restore(snapshot.op, snapshot.keyed);
      // Read once the records are known to be this snapshot's.
      const table =
        wholeTable ?? this.tableOfRecords(snapshot.op, snapshot.sessions!, sessionRecords);
      // The key table's records are keyed records: its section is read over them.
      const httpKeys = snapshot.httpKeys
        ? HttpKeyTable.decode(snapshot.httpKeys, this.keyed)
        : new HttpKeyTable(this.keyed);
      this.states.restore(snapshot.states, snapshot.op);
      this.setManifest(manifest);
      this.unchecked.clear();
      this.tableValue = table;
      this.sessionRecords.adopt(table, snapshot.sessions !== undefined);
      this.replaceHttpKeys(httpKeys);
      this.settingsValue = settings;
      this.expired = new ExpiredSessions(snapshot.expired);
      this.commitOpValue = snapshot.op;
      this.commitTimestampValue = snapshot.timestamp;
      this.restoredOpValue = snapshot.op;
      this.restoredTimestampValue = snapshot.timestamp;
      return snapshot.op;
    } catch (error) {
      this.resetToGenesis();
      throw error;
    }
  }

  private tableOfRecords(
    op: number,
    header: ClientTableHeader,
    records: SessionRecordSet | undefined,
  ): ClientTable {
    if (records === undefined) {
      throw new Error(
        `the snapshot at op ${op} keeps its sessions as keyed records, which were not read: restore it with restoreSnapshotFromDisk`,
      );
    }
    return tableFromRecords(header, records);
  }

  /**
   * {@link restoreSnapshot}, reading first what the snapshot keeps on disk
   * beside it: its sessions, when they are keyed records (snapshot format
   * 5). What a boot calls.
   */
  async restoreSnapshotFromDisk(payload: Buffer): Promise<number> {
    const sessions = snapshotKeepsSessionRecords(payload)
      ? await this.sessionRecords.read()
      : undefined;
    return this.restoreSnapshot(payload, sessions);
  }

  /** Back to the state before op 1: what a full replay starts from. */
  resetToGenesis(): void {
    this.keyed.resetToGenesis();
    this.states.restoreGenesis();
    this.setManifest(undefined);
    this.unchecked.clear();
    this.tableValue = genesisTable();
    this.sessionRecords.adopt(this.tableValue, false);
    this.replaceHttpKeys(new HttpKeyTable(this.keyed));
    this.settingsValue = GENESIS_SETTINGS;
    this.expired = new ExpiredSessions();
    this.commitOpValue = 0;
    this.commitTimestampValue = 0n;
    this.restoredOpValue = 0;
    this.restoredTimestampValue = 0n;
  }

  /** A new key table in force; the early forgets counted so far stay counted. */
  private replaceHttpKeys(table: HttpKeyTable): void {
    this.earlierEarlyForgets += this.httpKeysValue.earlyForgets;
    this.httpKeysValue = table;
  }
}

/** The error for code that cannot apply entries under a manifest (see {@link unsupportedBy}). */
function codeMismatch(op: number, verdict: ManifestVerdict, where: string): Error {
  switch (verdict.kind) {
    case 'state-too-new':
      return new ModuleVersionUnsupportedError(
        op,
        verdict.state,
        `${where} puts the module "${verdict.state}" at version ${verdict.journaled}, and this code provides version ${verdict.provided}: a downgrade is refused; run code of version ${verdict.journaled} or later`,
      );
    case 'state-missing':
      return new StateNotProvidedError(op, verdict.state, where);
    case 'command-missing':
      return new CommandNotProvidedError(op, verdict.pattern, where);
  }
}

function genesisTable(): ClientTable {
  return new ClientTable({ capacity: GENESIS_SETTINGS.clientsMax, ring: GENESIS_SETTINGS.ring });
}

function endedSession(session: EndingSession, reason: EndedSession['reason']): EndedSession {
  return {
    client: session.client,
    epoch: session.epoch,
    userId: session.userId,
    watermark: session.watermark,
    reason,
  };
}
