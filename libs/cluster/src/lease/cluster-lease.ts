import { openClusterBucket } from './cluster-bucket';
import { NodeLog } from './cluster-logger';
import { describeFailure } from './kv-failures';
import { LeaseKey, type LeaseKeyState, stateOf } from './lease-key';
import {
  type ClusterLeaseOptions,
  type ResolvedLeaseOptions,
  resolveLeaseOptions,
} from './lease-options';
import { type LeaseRole, NO_ROLE } from './lease-role';
import { nextTerm } from './lease-term';
import { type LeaseHolder, leaseSeal, sameHolder } from './lease-value';
import { Pause } from './pause';
import { TimedRole } from './timed-role';
import { watchKey } from './watch-key';

type Leadership = Extract<LeaseRole, { role: 'leader' }>;

/**
 * The cluster's leadership: at most one node at a time holds the lease key
 * of the cluster's bucket, written with revision CAS (`create` claims a free
 * key, `update` against the revision last written renews or takes over), and
 * the bucket's TTL frees the key of a holder that stopped renewing.
 *
 * The holder renews every `renewIntervalMs` and calls itself leader only
 * until `ttlMs` after it sent its last successful renewal (the bucket frees
 * the key `ttlMs` after it received it, later still): a refused renewal, or
 * none succeeding in time (NATS unreachable), ends its leadership at once.
 * The others read the key as often, since watchers are not told of expiries,
 * and claim it once it is gone; the watch tells them of new holders and of a
 * released key at once. The term counts takeovers (see `nextTerm`).
 *
 * The lease is no fence: should clocks misbehave, two nodes may each believe
 * they lead for a moment. The journal's appends are fenced by JetStream's
 * expected last sequence; the lease only decides who tries.
 *
 * Every value is signed with the cluster key (see `encodeLeaseValue`). One
 * that does not verify was written by something that is no node: it names
 * no leader (no node follows it, nor sends clients to its address), a leader
 * does not step down for it but writes its renewal over it, a follower keeps
 * following the holder it knew until that holder's TTL, and a node that
 * knows no holder claims the key from it as from a free key. A verified
 * value that is older than the leadership known (another node's, at a term
 * not above the one held or followed: a replay of an old value) is treated
 * the same way.
 */
export class ClusterLease {
  private readonly options: ResolvedLeaseOptions;
  private readonly log: NodeLog;
  private readonly timedRole: TimedRole;
  private readonly pause = new Pause();
  private key?: LeaseKey;
  /** Leader: the revision of its last write. */
  private heldRevision = 0;
  /** The newest revision of the key seen: older news (a slow read, a late event) is ignored. */
  private newestRevision = 0;
  private newestEventMs = -Infinity;
  private highestTerm = 0;
  /** Bumped whenever leadership begins or ends, so a late answer to an old renewal is dropped. */
  private generation = 0;
  /** A claim whose write went unanswered: should the key turn out to hold it, it was taken. */
  private unanswered?: { readonly holder: LeaseHolder; readonly sentAtMs: number };
  private running = false;
  /** False once {@link retire} was called: the node is stopping and claims nothing more. */
  private campaigning = true;
  private loop?: Promise<void>;
  private stopWatch?: () => void;
  private stopping?: Promise<void>;
  /** When a value that names no leader was last logged (they are logged at most once a renewal interval). */
  private invalidLoggedMs = -Infinity;

  constructor(options: ClusterLeaseOptions) {
    this.options = resolveLeaseOptions(options);
    this.log = new NodeLog(this.options.logger, this.options.nodeId, 'the lease key');
    this.timedRole = new TimedRole(
      (expired) => this.expired(expired),
      (error) => this.log.warn(`a lease listener threw: ${describeFailure(error)}`),
    );
  }

  /** Opens the bucket, reads the key (claiming it when free), then keeps at it until `stop`. */
  async start(): Promise<void> {
    if (this.key) throw new Error('the lease is already started');
    const { key, renewIntervalMs } = this.options;
    const kv = await openClusterBucket(this.options);
    const seal = leaseSeal(this.options.keyring, this.options.clusterName, key);
    this.key = new LeaseKey(kv, key, seal);
    this.running = true;
    this.stopWatch = watchKey(kv, key, renewIntervalMs, {
      entry: (entry) => this.observeEvent(this.screen(stateOf(entry, seal))),
      failure: (error) => this.log.trouble(`the lease watch failed: ${describeFailure(error)}`),
    });
    const first = this.tick();
    this.loop = first.then(() => this.run()); // a stop waits for the first round too
    await first;
  }

  /** What this node is now; never `leader` past the TTL of its last successful renewal. */
  role(): LeaseRole {
    return this.timedRole.get();
  }

  /** The holder this node knows of (itself when it leads), or undefined. */
  current(): LeaseHolder | undefined {
    const role = this.role();
    return role.role === 'none' ? undefined : role.holder;
  }

  /** Calls `listener` with each new role, in order; returns the unsubscribe function. */
  onChange(listener: (role: LeaseRole) => void): () => void {
    return this.timedRole.onChange(listener);
  }

  /**
   * No more claims: a node that is stopping keeps (and renews) a lease it
   * holds while it finishes what it admitted, but never takes one; its
   * journal may already be closed. A free key is left to the other nodes.
   * `stop` then releases a held lease. Idempotent.
   */
  retire(): void {
    if (!this.campaigning) return;
    this.campaigning = false;
    this.log.info('stopping: this node claims the cluster lease no more');
  }

  /**
   * Stops renewing and watching; a held lease is released by a delete
   * against its revision, so a key someone else wrote since is never
   * deleted (should the release fail, the key expires after the TTL).
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    this.running = false;
    this.stopWatch?.();
    this.pause.wake();
    await this.loop;
    const last = this.timedRole.last();
    if (last.role === 'leader' && this.key) {
      try {
        await this.key.release(this.heldRevision);
        this.log.info(`released the cluster lease (term ${last.term})`);
      } catch (error) {
        this.log.warn(`could not release the lease (it expires): ${describeFailure(error)}`);
      }
    }
    this.generation++;
    this.timedRole.set(NO_ROLE, 0);
    this.timedRole.close();
  }

  private async run(): Promise<void> {
    while (this.running) {
      await this.pause.for(this.options.renewIntervalMs);
      if (this.running) await this.tick();
    }
  }

  private async tick(): Promise<void> {
    try {
      const role = this.role();
      if (role.role === 'leader') await this.renew(role);
      else await this.readAndContend();
    } catch (error) {
      this.log.warn(`lease round failed: ${describeFailure(error)}`);
    }
  }

  private async renew(held: Leadership): Promise<void> {
    const { generation } = this;
    const sentAtMs = performance.now();
    const outcome = await this.key!.write(held.holder, this.heldRevision);
    if (generation !== this.generation) return;
    if (outcome.kind === 'written') {
      this.log.untroubled();
      if (this.role().role !== 'leader') return;
      this.heldRevision = outcome.revision;
      this.noteRevision(outcome.revision);
      this.timedRole.set(held, sentAtMs + this.options.ttlMs);
    } else if (outcome.kind === 'unanswered') {
      this.log.trouble(`lease renewal failed, leader until its TTL: ${outcome.reason}`);
    } else if (!(await this.adoptOwnWrite(held, generation))) {
      this.lose(`its renewal was refused (${outcome.reason})`);
      await this.readAndContend();
    }
  }

  /**
   * After a refused renewal: true when the key still holds this leadership
   * at a newer revision, written by a renewal whose answer was lost. Only
   * this node writes its own id and term, and each write expects the last
   * one, so the key was this node's all along: renew from that revision.
   * Also true when the key holds a value that names no leader (it does not
   * verify, or replays an older leadership): the next renewal overwrites it.
   */
  private async adoptOwnWrite(held: Leadership, generation: number): Promise<boolean> {
    const read = await this.key!.read().catch(() => undefined);
    if (generation !== this.generation || read?.kind !== 'held') return false;
    const state = this.screen(read);
    if (state.kind === 'held' && state.holder === undefined) {
      // Written by no node (or a replay): not a takeover. Renew over it.
      this.heldRevision = Math.max(this.heldRevision, state.revision);
      this.noteRevision(state.revision);
      this.pause.wake();
      return true;
    }
    if (state.kind !== 'held' || !sameHolder(state.holder, held.holder)) return false;
    this.heldRevision = Math.max(this.heldRevision, state.revision);
    this.noteRevision(state.revision);
    this.pause.wake();
    return true;
  }

  /** Reads the key: follows its holder, or claims it when free or left by this node. */
  private async readAndContend(): Promise<void> {
    const sentAtMs = performance.now();
    let state: LeaseKeyState;
    try {
      state = this.screen(await this.key!.read());
    } catch (error) {
      this.log.trouble(`cannot read the lease key: ${describeFailure(error)}`);
      return;
    }
    this.log.untroubled();
    if (!this.running || this.timedRole.last().role === 'leader') return;
    const stale =
      state.revision === 0 ? this.newestEventMs > sentAtMs : state.revision < this.newestRevision;
    if (stale) return; // the watch told of something newer meanwhile
    if (state.kind === 'held' && state.holder === undefined) {
      // A value no node wrote: a follower keeps its holder until that one's
      // TTL; a node that knows of no holder claims the key as if free.
      if (this.role().role === 'follower') return;
      this.timedRole.set(NO_ROLE, 0);
      await this.claim(state.revision);
      return;
    }
    const holder = state.kind === 'held' ? this.noteHolder(state.holder) : undefined;
    if (state.kind === 'held' && holder?.node !== this.options.nodeId) {
      this.follow(holder, sentAtMs);
      return;
    }
    if (state.kind === 'held' && this.adoptClaim(holder, state.revision)) return;
    // Free (absent, deleted), or holding a write of this node's from a leadership it no
    // longer claims: claim it, against the revision read, under a new term.
    this.timedRole.set(NO_ROLE, 0);
    await this.claim(state.revision);
  }

  /** The key holds the claim whose answer was lost: it was taken then, and holds until its TTL. */
  private adoptClaim(holder: LeaseHolder | undefined, revision: number): boolean {
    const claim = this.unanswered;
    this.unanswered = undefined;
    // A retired node leaves a claim that went unanswered to expire.
    if (!this.campaigning) return false;
    if (claim === undefined || !sameHolder(holder, claim.holder)) return false;
    const validUntilMs = claim.sentAtMs + this.options.ttlMs;
    if (performance.now() >= validUntilMs) return false;
    this.lead(claim.holder, revision, validUntilMs);
    return true;
  }

  private async claim(previousRevision: number): Promise<void> {
    if (!this.campaigning) {
      this.leaveFreeKey();
      return;
    }
    const floor = this.options.termFloor ? await this.options.termFloor() : 0;
    const { nodeId: node, advertise } = this.options;
    const holder: LeaseHolder = { node, advertise, term: nextTerm(this.highestTerm, floor) };
    // The floor's read took a round trip: the node may have begun stopping meanwhile.
    if (!this.campaigning) {
      this.leaveFreeKey();
      return;
    }
    const sentAtMs = performance.now();
    const outcome = await this.key!.write(holder, previousRevision);
    if (outcome.kind === 'written') {
      this.lead(holder, outcome.revision, sentAtMs + this.options.ttlMs);
    } else if (outcome.kind === 'unanswered') {
      this.unanswered = { holder, sentAtMs };
      this.log.trouble(`cannot take the lease: ${outcome.reason}`);
    } // refused: another node claimed it first; the watch or the next read tells who
  }

  /** Says, once, that a retired node saw the lease free and left it to the others. */
  private leaveFreeKey(): void {
    if (this.leftFreeKey) return;
    this.leftFreeKey = true;
    this.log.info('the cluster lease is free; this node is stopping and leaves it to the others');
  }

  private leftFreeKey = false;

  private lead(holder: LeaseHolder, revision: number, validUntilMs: number): void {
    this.generation++;
    this.unanswered = undefined;
    this.heldRevision = revision;
    this.noteRevision(revision);
    this.highestTerm = Math.max(this.highestTerm, holder.term);
    this.log.info(`took the cluster lease (term ${holder.term})`);
    this.timedRole.set({ role: 'leader', term: holder.term, holder }, validUntilMs);
  }

  /** A watch event: a write or a delete of the key. */
  private observeEvent(state: LeaseKeyState): void {
    if (!this.running || state.revision < this.newestRevision) return;
    this.noteRevision(state.revision);
    this.newestEventMs = performance.now();
    if (state.kind === 'held' && state.holder === undefined) {
      // Names no leader: the leader renews over it, a follower keeps its
      // holder, a node without one contends now.
      if (this.role().role === 'none') this.pause.wake();
      return;
    }
    const holder = state.kind === 'held' ? this.noteHolder(state.holder) : undefined;
    const ours = holder?.node === this.options.nodeId;
    const role = this.role();
    if (role.role === 'leader') {
      if (ours && holder?.term === role.term) {
        // Its own renewal, maybe seen before the renewal's answer.
        this.heldRevision = Math.max(this.heldRevision, state.revision);
        return;
      }
      this.lose(holder ? `${holder.node} wrote the key (term ${holder.term})` : 'key deleted');
    }
    if (state.kind === 'held' && !ours) {
      this.follow(holder, this.newestEventMs);
    } else {
      this.timedRole.set(NO_ROLE, 0);
      this.pause.wake(); // free, or a write of this node's it does not hold: contend now
    }
  }

  private follow(holder: LeaseHolder | undefined, observedAtMs: number): void {
    if (holder === undefined) this.timedRole.set(NO_ROLE, 0);
    else this.timedRole.set({ role: 'follower', holder }, observedAtMs + this.options.ttlMs);
  }

  private noteHolder(holder: LeaseHolder | undefined): LeaseHolder | undefined {
    if (holder !== undefined) this.highestTerm = Math.max(this.highestTerm, holder.term);
    return holder;
  }

  /**
   * `state` with the holder taken away when it names no leader: a value that
   * is unreadable or does not verify under the cluster key, or a verified
   * one older than the leadership this node holds or follows (another node
   * at a term not above the held one, or below the followed one: a replay).
   * Each such value is logged, at most once a renewal interval.
   */
  private screen(state: LeaseKeyState): LeaseKeyState {
    if (state.kind !== 'held') return state;
    let why: string | undefined;
    if (state.holder === undefined) {
      why =
        state.problem === 'unverified'
          ? "does not verify under this node's cluster key"
          : 'is not a lease value';
    } else if (this.isReplay(state.holder)) {
      why = `replays an older leadership (${state.holder.node}, term ${state.holder.term})`;
    }
    if (why === undefined) return state;
    const now = performance.now();
    if (now - this.invalidLoggedMs >= this.options.renewIntervalMs) {
      this.invalidLoggedMs = now;
      this.log.warn(
        `the lease key's value at revision ${state.revision} ${why}: it names no leader, ignored (LEASE_VALUE_UNVERIFIED)`,
      );
    }
    return { kind: 'held', revision: state.revision, holder: undefined, problem: 'unverified' };
  }

  private isReplay(holder: LeaseHolder): boolean {
    const role = this.role();
    if (role.role === 'leader') {
      return !sameHolder(holder, role.holder) && holder.term <= role.term;
    }
    if (role.role === 'follower') {
      return (
        holder.term < role.holder.term ||
        (holder.term === role.holder.term && !sameHolder(holder, role.holder))
      );
    }
    return false;
  }

  private noteRevision(revision: number): void {
    this.newestRevision = Math.max(this.newestRevision, revision);
  }

  private lose(reason: string): void {
    const held = this.timedRole.last();
    this.timedRole.set(NO_ROLE, 0);
    if (held.role === 'leader') this.endLeadership(held.term, reason);
  }

  /** The TTL passed without a renewal (leader) or a word of the holder (follower). */
  private expired(role: LeaseRole): void {
    if (role.role === 'leader') this.endLeadership(role.term, 'no renewal succeeded in its TTL');
    this.pause.wake();
  }

  private endLeadership(term: number, reason: string): void {
    this.generation++;
    this.heldRevision = 0;
    this.log.warn(`lost the cluster lease (term ${term}): ${reason}`);
  }
}
