import { JetStreamJournal, JournalGroupUnverifiedError } from '../journal';
import { type ClusterLease } from '../lease';
import { CATCH_UP_TIMEOUT_MS_DEFAULT } from './cluster-node-options';
import { type ClusterNode } from './cluster-node';
import { LeaderTerm } from './leader-term';

/** How long a node that could not take up its leadership waits before trying again. */
const RETRY_AFTER_MS = 1_000;
/** How often a new leader looks at how far it applied while catching up. */
const CATCH_UP_POLL_MS = 10;
/** A switch step running longer than this is logged (and again each time as long again passes). */
const SLOW_STEP_MS = 15_000;

/**
 * Leading and following, switched as the lease changes hands; one switch at
 * a time, in the order the lease reported the changes.
 *
 * Taking over: open a writer on the stream (it starts after the stream's
 * last message), apply everything up to there, stop following, then start
 * the {@link LeaderTerm}. Should the stream have moved on meanwhile (a
 * deposed leader's late append), the takeover is abandoned and tried again;
 * the writer's expected last sequence would have refused our appends anyway.
 *
 * Stepping down (the lease was lost, or an append was refused or failed):
 * end the term at once, then follow the stream from the local end.
 */
export class RoleSwitch {
  term: LeaderTerm | undefined;
  #queue: Promise<void> = Promise.resolve();
  #frozen = false;
  #retry: NodeJS.Timeout | undefined;
  /** The step the switch is on, since when, and when it was last said to be slow. */
  #step: { name: string; sinceMs: number; reportedMs: number } | undefined;
  readonly #watchdog: NodeJS.Timeout;

  constructor(
    private readonly node: ClusterNode,
    private readonly lease: ClusterLease,
  ) {
    lease.onChange((role) => {
      // Losing the lease ends the term now, not after a takeover still settling.
      if (role.role !== 'leader') this.term?.end(new Error('the cluster lease was lost'));
      this.schedule();
    });
    // A switch waits on NATS at each step; one that never ends would leave a
    // node holding the lease without serving, so a slow step is said out loud.
    this.#watchdog = setInterval(() => this.reportSlowStep(), SLOW_STEP_MS / 3);
    this.#watchdog.unref();
  }

  /** The term's writer failed: end it, then take it up again if the lease is still ours. */
  writerFailed(error: Error): void {
    this.term?.end(error);
    this.schedule();
  }

  /** No more switches (a graceful stop); resolves once the one under way is done. */
  async freeze(): Promise<void> {
    this.#frozen = true;
    clearTimeout(this.#retry);
    await this.#queue;
    clearInterval(this.#watchdog);
  }

  /** Runs `work` as the named step of the switch under way (see {@link reportSlowStep}). */
  private async step<T>(name: string, work: () => Promise<T>): Promise<T> {
    const sinceMs = performance.now();
    this.#step = { name, sinceMs, reportedMs: sinceMs };
    try {
      return await work();
    } finally {
      this.#step = undefined;
    }
  }

  private reportSlowStep(): void {
    const step = this.#step;
    if (!step) return;
    const nowMs = performance.now();
    if (nowMs - step.reportedMs < SLOW_STEP_MS) return;
    step.reportedMs = nowMs;
    this.node.logger.warn(
      `${this.node.nodeId}: the cluster role switch has spent ${Math.round((nowMs - step.sinceMs) / 1000)} s ${step.name}`,
    );
  }

  private schedule(): void {
    this.#queue = this.#queue
      .then(() => this.settle())
      .catch((error: unknown) => {
        if (error instanceof JournalGroupUnverifiedError) {
          // The stream's end does not verify: never lead (nor follow) from it.
          this.node.refuseStream(error);
          return;
        }
        this.node.logger.error(`cluster role switch failed: ${String(error)}`);
        this.retryLater();
      });
  }

  private retryLater(): void {
    if (this.#frozen) return;
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => this.schedule(), RETRY_AFTER_MS);
    this.#retry.unref();
  }

  private get leads(): boolean {
    return !this.#frozen && this.lease.role().role === 'leader';
  }

  private async settle(): Promise<void> {
    if (this.#frozen) return;
    if (this.term && (!this.leads || this.term.ended)) await this.stepDown();
    // A node without a term copies the stream, whatever its lease role: a
    // start of the follower that failed (NATS unreachable for longer than
    // the stream's leader wait) is tried again here, at each retry and lease
    // change, and a takeover catches up through it.
    if (!this.term && !this.node.following) {
      await this.step('starting to follow the stream', () => this.node.follow());
    }
    if (!this.term && this.leads) await this.takeOver();
  }

  private async stepDown(): Promise<void> {
    const term = this.term!;
    this.term = undefined;
    // A term that ended by itself (a refused or failed append) keeps that reason.
    term.end(new Error(this.#frozen ? 'the node is stopping' : 'the cluster lease was lost'));
    this.node.logger.log(
      `${this.node.nodeId}: left term ${term.number} (${term.endReason?.message ?? 'ended'}); following the stream`,
    );
    await this.step('following the stream after stepping down', () => this.node.follow());
    if (this.leads) this.retryLater();
  }

  private async takeOver(): Promise<void> {
    const role = this.lease.role();
    if (role.role !== 'leader') return;
    const { node } = this;
    const writer = await this.step('opening the stream writer to take over', () =>
      JetStreamJournal.open({
        connection: node.connection,
        clusterName: node.options.clusterName,
        replicas: node.options.replicas,
        keyring: node.keyring,
        unsignedThroughSeq: node.options.unsignedThroughSeq,
        ...node.options.stream,
      }),
    );
    const target = writer.lastOp;
    if (
      !(await this.step(`catching up to op ${target} to take over`, () => this.catchUp(target)))
    ) {
      await writer.close();
      if (this.leads) this.retryLater();
      return;
    }
    await this.step('stopping the stream follower to take over', () => node.unfollow());
    if (node.journal.local.lastOp !== target || node.engine.commitOp !== target) {
      node.logger.warn(
        `${node.nodeId}: the stream moved past op ${target} while taking over; trying again`,
      );
      await writer.close();
      await this.step('following the stream again', () => node.follow());
      this.retryLater();
      return;
    }
    const term = new LeaderTerm(role.term, writer, node);
    this.term = term;
    try {
      await this.step(`settling term ${role.term}`, () => term.settle(target === 0));
    } catch (error) {
      node.logger.warn(`${node.nodeId}: term ${role.term} could not settle: ${String(error)}`);
      await this.stepDown();
      return;
    }
    if (!term.ended) {
      node.logger.log(`${node.nodeId}: leads term ${role.term} from op ${target}`);
    }
  }

  /** Waits until the engine applied op `target`; false if the lease went, the node failed or time ran out. */
  private async catchUp(target: number): Promise<boolean> {
    const { engine } = this.node;
    const timeoutMs = this.node.options.catchUpTimeoutMs ?? CATCH_UP_TIMEOUT_MS_DEFAULT;
    const deadline = Date.now() + timeoutMs;
    while (engine.commitOp < target) {
      if (!this.leads || engine.phase === 'failed') return false;
      if (Date.now() > deadline) {
        this.node.logger.warn(
          `${this.node.nodeId}: applied op ${engine.commitOp} of ${target} after ${timeoutMs} ms; giving the takeover up for now`,
        );
        return false;
      }
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP_POLL_MS));
    }
    return this.leads;
  }
}
