import { type Backoff } from './backoff';
import { sdkAssert } from './errors/sdk-assert';
import { type NodeAddress, sameNodeAddress } from './node-address';

/** Addresses learnt from nodes' PING replies that are kept, at most; later ones are ignored. */
export const LEARNED_NODES_MAX = 16;

/** Where the next connection attempt goes, and when. */
export interface NextAttempt {
  /** The node to connect to. */
  readonly node: NodeAddress;
  /** Wait before connecting, ms: 0 inside a round, the backoff delay before a new round. */
  readonly delayMs: number;
  /**
   * This attempt starts a new round (every node once); `round` is then its
   * 1-based number since the last bind, which `reconnect.attemptsMax` bounds.
   */
  readonly newRound: boolean;
  readonly round: number;
  /**
   * With `newRound`: some node of the round that just ended answered NOT_READY
   * (it exists and will serve later), rather than every one being unreachable.
   */
  readonly notReadyInLastRound: boolean;
}

/**
 * Which node a client connects to next, and after what delay: the failover
 * policy, kept free of sockets and timers so that it can be tested alone.
 *
 * The nodes are tried in rounds. A round tries every known node once, in
 * list order, starting after the node the client was last on; the attempts of
 * a round follow one another at once, and only a new round waits for the
 * backoff delay of its number. So a dead node costs one connect timeout,
 * never a backoff step, while a cluster with no node serving is not hammered.
 * With one node a round is one attempt, which is the single-node reconnect
 * loop: the drop of a bound connection, then every failed attempt, each wait
 * the next backoff delay.
 *
 * The first connect is round 0: every node once, from the first, no delay.
 * A bind ends the round and resets the count. The list only grows: addresses
 * learnt from nodes are appended (at most {@link LEARNED_NODES_MAX}), and a
 * configured node is never removed.
 *
 * A follower that cannot serve names its leader in its NOT_READY
 * ({@link redirected}): the client goes there next, at once, inside the
 * round under way, rather than walking the list to it.
 */
export class NodeRotation {
  private readonly list: NodeAddress[];
  private readonly configuredCount: number;
  /** The node of the attempt under way, or of the bound connection. */
  private index = 0;
  /** Attempts of the current round still to make after the one under way; -1 once bound. */
  private remaining: number;
  /** The node the current round began with (or the leader hint it last followed). */
  private roundStart = 0;
  /** Rounds started since the last bind (0: the first connect's round). */
  private rounds = 0;
  private notReadyInRound = false;
  /** A leader hint may be followed at once: spent by following one, restored by a backoff wait. */
  private hintAllowed = true;

  constructor(
    configured: readonly NodeAddress[],
    private readonly backoff: Pick<Backoff, 'delay'>,
  ) {
    sdkAssert(configured.length > 0, 'at least one node is configured');
    this.list = configured.map(({ host, port }) => ({ host, port }));
    this.configuredCount = this.list.length;
    this.remaining = this.list.length - 1;
  }

  /** Every node known, configured ones first, then learnt ones in the order learnt. */
  get nodes(): readonly NodeAddress[] {
    return this.list;
  }

  /** Whether `address` is known: configured or learnt. */
  isKnown(address: NodeAddress): boolean {
    return this.list.some((known) => sameNodeAddress(known, address));
  }

  /** The node of the attempt under way, or of the bound connection. */
  get current(): NodeAddress {
    return this.list[this.index];
  }

  /** A session was bound on {@link current}: the round is over, the count starts again. */
  succeeded(): void {
    this.remaining = -1;
    this.rounds = 0;
    this.notReadyInRound = false;
  }

  /**
   * The attempt on {@link current} failed (no connection, no bind, NOT_READY),
   * or its bound connection dropped: where to go next. `notReady` says the
   * node answered NOT_READY: it is passed over for this round like a dead one.
   */
  failed(notReady = false): NextAttempt {
    this.notReadyInRound ||= notReady;
    this.index = (this.index + 1) % this.list.length;
    if (this.remaining > 0) {
      this.remaining -= 1;
      return this.attempt(0, false, false);
    }
    const notReadyInLastRound = this.remaining === 0 && this.notReadyInRound;
    this.rounds += 1;
    this.roundStart = this.index;
    this.remaining = this.list.length - 1;
    this.notReadyInRound = false;
    this.hintAllowed = true;
    return this.attempt(this.backoff.delay(this.rounds), true, notReadyInLastRound);
  }

  /**
   * The attempt on {@link current} was answered NOT_READY naming `leader`,
   * the address its cluster's leader advertises: where to go next.
   *
   * The hint is followed at once: `leader` joins the list when unknown (only
   * with `addUnknown`, and within {@link LEARNED_NODES_MAX}) and is the next
   * attempt, with no delay and no new round. The walk of the round then
   * starts again from it: after it, every other node once, so that a stale
   * hint costs one attempt and hides no node. (From a bound connection there
   * is no round under way: the walk is then like the first connect's, and
   * the round after it is round 1.)
   *
   * Ping-pong guard: at most one hint is followed at once between two backoff
   * waits, the first connect counting as a wait. Only the wait before a new
   * round restores the allowance; a bind does not, so even nodes that bind and
   * then name each other cannot make the client loop without delay. While
   * the allowance is spent, and for a node naming itself or an unknown address
   * that may not or cannot be added, the reply counts as {@link failed}`(true)`
   * (an address that can be added still is, for the attempts to come). So two
   * followers naming each other cost one extra attempt per round, nothing more.
   */
  redirected(leader: NodeAddress, addUnknown = true): NextAttempt {
    const namesItself = sameNodeAddress(leader, this.current);
    let target = this.list.findIndex((known) => sameNodeAddress(known, leader));
    if (target < 0 && addUnknown && this.learn(leader)) target = this.list.length - 1;
    if (namesItself || target < 0 || !this.hintAllowed) return this.failed(true);
    this.hintAllowed = false;
    this.notReadyInRound = true;
    this.index = target;
    this.roundStart = target;
    this.remaining = this.list.length - 1;
    return this.attempt(0, false, false);
  }

  /**
   * Adds an address a node reported (its leader), unless it is known
   * already or {@link LEARNED_NODES_MAX} were learnt. It joins the round
   * under way when the round has not passed the end of the list yet (the
   * round grows by one), else the next one. True if it was added.
   */
  learn(address: NodeAddress): boolean {
    if (this.list.some((known) => sameNodeAddress(known, address))) return false;
    if (this.list.length - this.configuredCount >= LEARNED_NODES_MAX) return false;
    this.list.push({ host: address.host, port: address.port });
    if (this.remaining >= 0 && this.index >= this.roundStart) this.remaining += 1;
    return true;
  }

  private attempt(delayMs: number, newRound: boolean, notReadyInLastRound: boolean): NextAttempt {
    return { node: this.current, delayMs, newRound, round: this.rounds, notReadyInLastRound };
  }
}
