import { type BenchContext } from './bench-context';
import { DurablePeers, type DurablePeersReport } from './durable-peers';
import { measureThroughputRun, type ThroughputRun } from './throughput-run';

/**
 * Every throughput run of the single-node bench, with the durable peers up
 * for all of them: their servers start before the first run (PostgreSQL's
 * initdb alone takes seconds) and stop after the last, failed or not, once
 * their exactly-once was checked.
 */
export async function measureThroughputRuns(
  context: BenchContext,
): Promise<{ runs: ThroughputRun[]; peers: DurablePeersReport }> {
  const { options, log } = context;
  const runs: ThroughputRun[] = [];
  const peers = await DurablePeers.start(context);
  try {
    for (let index = 0; index < options.runs; index++) {
      log(`run ${index + 1}/${options.runs}`);
      runs.push(await measureThroughputRun(context, index, peers));
    }
    return { runs, peers: peers.report(await peers.checkExactlyOnce(context)) };
  } finally {
    await peers.stop();
  }
}
