import { setTimeout as delay } from 'node:timers/promises';
import { type ServiceProcess, type TcpProxy } from '@once/testing';
import { type RangeMs } from './cli-values';
import { type SeededRandom } from './seeded-random';

/** What the chaos did during the run. */
export interface ChaosCounts {
  /** SIGKILLs of the service, each followed by a restart on the same data directory and port. */
  kills: number;
  /** Cuts of every proxied connection at once (both ends see a reset). */
  cuts: number;
  /** Stalls of the proxy: no byte forwarded, no connection opened, then everything resumes. */
  stalls: number;
  /** SIGKILL to PING ready again, per kill. */
  readonly restartMs: number[];
  /** Times the service was found dead without a kill of the soak (it was restarted). */
  unexpectedExits: number;
}

/** How long a stall holds every byte: a few hundred ms, around the SDK's reconnect delays. */
const STALL_MS: RangeMs = { minMs: 100, maxMs: 800 };
/** How long the service stays dead after a SIGKILL before it is started again. */
const DOWNTIME_MS: RangeMs = { minMs: 0, maxMs: 500 };

/**
 * The chaos of a soak run, two independent loops until `stop()`: one
 * SIGKILLs the service at random intervals and restarts it (the clients keep
 * their sessions: they resume and resend), the other cuts every connection
 * of the proxy or stalls it for a few hundred ms. They overlap freely: a cut
 * may land during a restart, a kill during a stall.
 */
export class Chaos {
  readonly counts: ChaosCounts = {
    kills: 0,
    cuts: 0,
    stalls: 0,
    restartMs: [],
    unexpectedExits: 0,
  };
  private readonly abort = new AbortController();
  /** Both loops; rejects as soon as one fails (a restart that did not come up). */
  readonly running: Promise<void>;

  constructor(
    private readonly service: ServiceProcess,
    private readonly proxy: TcpProxy,
    random: SeededRandom,
    killEveryMs: RangeMs,
    faultEveryMs: RangeMs,
  ) {
    this.running = Promise.all([
      this.killLoop(random.fork(1), killEveryMs),
      this.faultLoop(random.fork(2), faultEveryMs),
    ]).then(() => undefined);
    // Observed by the run (a race with its duration) and by stop(); never left unhandled.
    this.running.catch(() => undefined);
  }

  /**
   * Ends both loops: a restart under way is finished first, a stall is
   * resumed, and a service found dead is restarted, so the service runs
   * and the proxy forwards when it resolves. Rejects with the first failure
   * of a loop.
   */
  async stop(): Promise<ChaosCounts> {
    this.abort.abort();
    await this.running;
    this.proxy.resume();
    if (!this.service.running) {
      this.counts.unexpectedExits++;
      await this.service.restart();
    }
    return this.counts;
  }

  /** Kills and restarts; a service already dead by itself is counted and only restarted. */
  private async killLoop(random: SeededRandom, everyMs: RangeMs): Promise<void> {
    while (await this.pause(random, everyMs)) {
      const killedAtMs = performance.now();
      const killed = this.service.running;
      if (killed) {
        await this.service.crash();
        this.counts.kills++;
      } else {
        this.counts.unexpectedExits++;
      }
      await delay(draw(random, DOWNTIME_MS));
      await this.service.restart();
      if (killed) this.counts.restartMs.push(Math.round(performance.now() - killedAtMs));
    }
  }

  private async faultLoop(random: SeededRandom, everyMs: RangeMs): Promise<void> {
    while (await this.pause(random, everyMs)) {
      if (random.chance(0.5)) {
        this.proxy.cut();
        this.counts.cuts++;
      } else {
        this.proxy.stall();
        this.counts.stalls++;
        await delay(draw(random, STALL_MS));
        this.proxy.resume();
      }
    }
  }

  /** Waits a random delay of `range`; false when the chaos is stopping. */
  private async pause(random: SeededRandom, range: RangeMs): Promise<boolean> {
    try {
      await delay(draw(random, range), undefined, { signal: this.abort.signal });
      return true;
    } catch (error) {
      if (this.abort.signal.aborted) return false;
      throw error;
    }
  }
}

function draw(random: SeededRandom, range: RangeMs): number {
  return random.integer(range.minMs, range.maxMs);
}
