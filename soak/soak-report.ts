import { type ChaosCounts } from './chaos';
import { type ClusterChaosCounts } from './cluster-chaos';
import { type DiskUsage, GROWTH_ALLOWED } from './disk-usage';
import { type ClusterConvergence } from './replica-comparison';
import { type SoakOptions } from './soak-options';
import { type NodeReplay } from './soak-target';
import { type SoakChecks, type SoakVerdict } from './soak-verdict';
import { type ClientEventCounts } from './transfer-client';
import { type TransferRecord } from './transfer-record';

/** The JSON document of a run (`--out`); `passed` is what the exit code says. */
export interface SoakReport {
  readonly passed: boolean;
  readonly transfers: SoakVerdict['transfers'];
  /** With `--cluster`, ClusterChaosCounts: leader and follower kills, and every failover. */
  readonly chaos: ChaosCounts | ClusterChaosCounts;
  /** Cluster runs only: the failovers' times summed up. */
  readonly failover: FailoverSummary | undefined;
  readonly checks: SoakChecks;
  /** References probed at the end: every unacknowledged one, and `acknowledged` of `ofAcknowledged`. */
  readonly probed: {
    readonly references: number;
    readonly acknowledged: number;
    readonly ofAcknowledged: number;
  };
  /** Each node's graceful stop and full replay (one, `service`, without `--cluster`). */
  readonly replays: readonly NodeReplay[];
  /**
   * The journal's length and the data directories' size during the load
   * (every 2 s), and whether the journal stayed flat; with `--retain` a run
   * whose journal kept growing fails.
   */
  readonly disk: DiskUsage;
  /** Cluster runs only: whether every node reached the same state. */
  readonly cluster: ClusterConvergence | undefined;
  /** Counts per refusal code, per reason of doubt, per reason a transfer was not sent or failed. */
  readonly breakdown: Readonly<
    Record<'refused' | 'inDoubt' | 'notSent' | 'failed', Record<string, number>>
  >;
  /** The load clients' events, summed; `stoppedEarly` counts SDK clients that gave up by themselves. */
  readonly clients: Omit<ClientEventCounts, 'sessionsLost'> & {
    readonly sessionsLost: Record<string, number>;
    readonly stoppedEarly: number;
  };
  readonly examples: SoakVerdict['examples'];
  readonly settings: Omit<SoakOptions, 'out'> & { readonly snapshotEveryOps: number };
  /** Wall time of each phase: `probe` includes the balance queries, `replay` the graceful stop. */
  readonly elapsedMs: Readonly<
    Record<'setup' | 'load' | 'drain' | 'probe' | 'replay' | 'total', number>
  >;
  /** The run's directory (the service's `build`, `data` and `service.log`), kept when a check failed. */
  readonly dataDir: string | undefined;
}

/** The median and the maximum of some durations, ms. */
export interface Spread {
  readonly p50: number;
  readonly max: number;
}

/** How long the cluster took to get over its leaders' kills. */
export interface FailoverSummary {
  /** Leader kills timed. */
  readonly count: number;
  /** Of `count`: those after which another node led (else the killed one came back first). */
  readonly toAnotherNode: number;
  /** Kill → a node says it leads. */
  readonly takeoverMs: Spread | undefined;
  /** Kill → the first transfer acknowledged through the next leader. */
  readonly firstCommitMs: Spread | undefined;
}

/** The failovers of a cluster run summed up; undefined for a single service. */
export function failoverSummary(chaos: ChaosCounts): FailoverSummary | undefined {
  if (!('failovers' in chaos)) return undefined;
  const { failovers } = chaos as ClusterChaosCounts;
  return {
    count: failovers.length,
    toAnotherNode: failovers.filter((failover) => failover.next !== failover.killed).length,
    takeoverMs: spread(failovers.map((failover) => failover.takeoverMs)),
    firstCommitMs: spread(failovers.map((failover) => failover.firstCommitMs)),
  };
}

function spread(values: readonly number[]): Spread | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: sorted[Math.floor(sorted.length / 2)], max: sorted[sorted.length - 1] };
}

/** Counts of the outcomes' codes and reasons, per kind of outcome. */
export function outcomeBreakdown(records: readonly TransferRecord[]): SoakReport['breakdown'] {
  const breakdown: Record<keyof SoakReport['breakdown'], Record<string, number>> = {
    refused: {},
    inDoubt: {},
    notSent: {},
    failed: {},
  };
  const count = (table: Record<string, number>, key: string) =>
    (table[key] = (table[key] ?? 0) + 1);
  for (const { outcome } of records) {
    if (outcome.kind === 'refused') count(breakdown.refused, outcome.code);
    else if (outcome.kind === 'in-doubt') count(breakdown.inDoubt, outcome.why);
    else if (outcome.kind === 'not-sent') count(breakdown.notSent, outcome.why);
    else if (outcome.kind === 'failed') count(breakdown.failed, outcome.why);
  }
  return breakdown;
}

/** The summary printed at the end of a run: one line per figure, the checks last. */
export function summaryTable(report: SoakReport): string {
  const { transfers, chaos, checks } = report;
  const yes = (value: boolean) => (value ? 'yes' : 'NO');
  const rows: Array<[string, string]> = [
    ['transfers attempted', `${transfers.attempted}`],
    ['  acknowledged', `${transfers.acknowledged}`],
    ['  refused (committed refusals)', `${transfers.refused}${codes(report.breakdown.refused)}`],
    [
      '  in doubt',
      `${transfers.inDoubt} (${transfers.inDoubtApplied} turned out applied)${codes(report.breakdown.inDoubt)}`,
    ],
    ['  not sent', `${transfers.notSent}${codes(report.breakdown.notSent)}`],
    ['  other errors', `${transfers.failed}${codes(report.breakdown.failed)}`],
    ...killRows(chaos, report.failover),
    ['connection cuts', `${chaos.cuts}`],
    ['proxy stalls', `${chaos.stalls}`],
    ['process exits not caused by the soak', `${chaos.unexpectedExits}`],
    [
      'client disconnects',
      `${report.clients.disconnects} (resumed ${report.clients.resumedByToken} by token, ${report.clients.resumedByRegister} by REGISTER)`,
    ],
    [
      'references probed',
      `${report.probed.references} (every unacknowledged one, ${report.probed.acknowledged} of ${report.probed.ofAcknowledged} acknowledged)`,
    ],
    ['lost (acknowledged, not applied)', `${checks.lost}`],
    ['doubled (applied twice)', `${checks.doubled}`],
    ['phantom (refused or unsent, applied)', `${checks.phantom}`],
    ['probes inconclusive', `${checks.inconclusive}`],
    [
      'money conserved',
      `${yes(checks.conserved)} (${checks.initialTotal} deposited, ${checks.finalTotal} held)`,
    ],
    [
      'balances reconcile',
      checks.reconciled ? 'yes' : `NO ${checks.mismatchedAccounts.join(', ')}`,
    ],
    ...replayRows(report),
    ...diskRows(report),
    ...(report.cluster ? convergenceRows(report.cluster) : []),
    ['verdict', report.passed ? 'PASS' : 'FAIL'],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
}

/** The kills: of the service, or of the cluster's leaders and followers with the failovers. */
function killRows(
  chaos: ChaosCounts,
  failover: FailoverSummary | undefined,
): Array<[string, string]> {
  const restarts = spread(chaos.restartMs);
  const back = restarts ? ` (back in ${restarts.p50} ms median, ${restarts.max} ms max)` : '';
  if (failover === undefined)
    return [['service kills (SIGKILL + restart)', `${chaos.kills}${back}`]];
  const { leaderKills, followerKills } = chaos as ClusterChaosCounts;
  const times = (what: string, value: Spread | undefined) =>
    value ? `${what} ${value.p50} ms median, ${value.max} ms max` : `${what} -`;
  return [
    [
      'node kills (SIGKILL + restart)',
      `${chaos.kills}: ${leaderKills} of the leader, ${followerKills} of a follower${back}`,
    ],
    [
      'failovers',
      `${failover.count} (${failover.toAnotherNode} to another node); ` +
        `${times('a node leads after', failover.takeoverMs)}; ` +
        `${times('first commit after', failover.firstCommitMs)}`,
    ],
  ];
}

/** The journal's and the data directories' peaks in each half of the load, and whether the journal stayed flat. */
function diskRows(report: SoakReport): Array<[string, string]> {
  const { disk, settings } = report;
  const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;
  const flat =
    disk.bounded === undefined
      ? 'not observed'
      : disk.bounded
        ? 'yes'
        : settings.retain === undefined
          ? 'no'
          : 'NO';
  const retain =
    settings.retain === undefined ? 'no retention' : `retaining ${settings.retain} snapshots`;
  const newest = disk.samples.at(-1);
  return [
    [
      'journal stayed flat',
      `${flat} (${retain}; at most ${disk.firstHalfMaxEntries ?? '-'} entries in the first half of the load, ${disk.secondHalfMaxEntries ?? '-'} in the second; flat: at most ×${GROWTH_ALLOWED})`,
    ],
    [
      '  data directory',
      `peak ${mib(disk.firstHalfMaxBytes)} in the first half, ${mib(disk.secondHalfMaxBytes)} in the second (snapshots included: the newest ${newest?.snapshotBytes === undefined ? '-' : mib(newest.snapshotBytes)})`,
    ],
  ];
}

/** One row per node's stop and replay, and what verify said when it disagreed. */
function replayRows(report: SoakReport): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  const single = report.cluster === undefined;
  for (const replay of report.replays) {
    rows.push([
      single ? 'full replay equals live state' : `full replay equals live state, ${replay.node}`,
      `${replay.equal ? 'yes' : 'NO'} (snapshot op ${replay.snapshotOp ?? '-'}, journal ops ${replay.journalOps ?? '-'}, stop exit ${replay.stopExitCode}, verify exit ${replay.verifyExitCode})`,
    ]);
    if (!replay.equal) rows.push(['  verify said', replay.verifyReport]);
  }
  return rows;
}

/** Whether the nodes agreed, and each node's newest snapshot when they did not. */
function convergenceRows(cluster: ClusterConvergence): Array<[string, string]> {
  const [first] = cluster.snapshots;
  const rows: Array<[string, string]> = [
    [
      'nodes reached the same state',
      cluster.identical
        ? `yes (commit op ${cluster.commits[0]}, newest snapshots identical: ${first.bytes} bytes, sha256 ${first.sha256?.slice(0, 16)}…)`
        : `NO (commit ops ${cluster.commits.join(', ')}${cluster.converged ? '' : ', never equal'})`,
    ],
  ];
  if (!cluster.identical) {
    for (const snapshot of cluster.snapshots) {
      rows.push([
        `  ${snapshot.node} newest snapshot`,
        snapshot.error ??
          `op ${snapshot.op ?? '-'}, ${snapshot.bytes ?? '-'} bytes, sha256 ${snapshot.sha256 ?? '-'}`,
      ]);
    }
  }
  return rows;
}

/** ` [A 3, B 1]`, or nothing for an empty table. */
function codes(table: Record<string, number>): string {
  const entries = Object.entries(table);
  return entries.length === 0 ? '' : ` [${entries.map(([code, n]) => `${code} ${n}`).join(', ')}]`;
}
