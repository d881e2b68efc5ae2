import { type BenchContext } from './bench-context';
import { DurablePeers, type DurablePeersReport } from './durable-peers';
import { HttpPeers, type HttpPeersReport } from './http-peers';
import { measureThroughputRun, type ThroughputRun } from './throughput-run';

/**
 * Every throughput run of the single-node bench, with the durable peers and
 * the HTTP peers up for all of them: their servers start before the first run (PostgreSQL's
 * initdb alone takes seconds) and stop after the last, failed or not, once
 * their exactly-once was checked.
 */
export async function measureThroughputRuns(
  context: BenchContext,
): Promise<{ runs: ThroughputRun[]; peers: DurablePeersReport; httpPeers: HttpPeersReport }> {
  const { options, log } = context;
  const runs: ThroughputRun[] = [];
  const peers = await DurablePeers.start(context);
  let httpPeers: HttpPeers | undefined;
  try {
    httpPeers = await HttpPeers.start(context);
    for (let index = 0; index < options.runs; index++) {
      log(`run ${index + 1}/${options.runs}`);
      runs.push(await measureThroughputRun(context, index, peers, httpPeers));
    }
    return {
      runs,
      peers: peers.report(await peers.checkExactlyOnce(context)),
      httpPeers: httpPeers.report(),
    };
  } finally {
    await httpPeers?.stop();
    await peers.stop();
  }
}
