import { setTimeout as delay } from 'node:timers/promises';
import { type TcpProxy } from '@once/testing';
import { type ChaosPauses, draw } from './chaos-pauses';
import { type RangeMs } from './cli-values';
import { type SeededRandom } from './seeded-random';

/** What the link faults did. */
export interface LinkFaultCounts {
  /** Cuts of every connection of a proxy at once (both ends see a reset). */
  cuts: number;
  /** Stalls of a proxy: no byte forwarded, no connection opened, then everything resumes. */
  stalls: number;
}

/** How long a stall holds every byte: a few hundred ms, around the SDK's reconnect delays. */
const STALL_MS: RangeMs = { minMs: 100, maxMs: 800 };
/** With several proxies (a cluster), the chance that a fault hits all of them, else one. */
const ALL_PROXIES_CHANCE = 0.5;

/**
 * The fault loop of the chaos: every `everyMs` until the chaos stops, cuts
 * every connection of the proxies or stalls them for a few hundred ms (half
 * and half). With several proxies, one per node of a cluster, a fault hits
 * them all or one of them, so the clients sometimes lose only the link to
 * one node. A stall under way when the chaos stops is resumed.
 */
export async function faultLinks(
  proxies: readonly TcpProxy[],
  random: SeededRandom,
  everyMs: RangeMs,
  pauses: ChaosPauses,
  counts: LinkFaultCounts,
): Promise<void> {
  while (await pauses.wait(random, everyMs)) {
    const hit = proxiesHit(proxies, random);
    if (random.chance(0.5)) {
      for (const proxy of hit) proxy.cut();
      counts.cuts++;
    } else {
      for (const proxy of hit) proxy.stall();
      counts.stalls++;
      await delay(draw(random, STALL_MS));
      for (const proxy of hit) proxy.resume();
    }
  }
}

/** The proxies a fault hits: the only one, or all of them or one at random. */
function proxiesHit(proxies: readonly TcpProxy[], random: SeededRandom): readonly TcpProxy[] {
  if (proxies.length === 1 || random.chance(ALL_PROXIES_CHANCE)) return proxies;
  return [proxies[random.integer(0, proxies.length - 1)]];
}
