import { type ChaosCounts } from './chaos';
import { type ReplayCheck } from './replay-check';
import { type SoakOptions } from './soak-options';
import { type SoakChecks, type SoakVerdict } from './soak-verdict';
import { type ClientEventCounts } from './transfer-client';
import { type TransferRecord } from './transfer-record';

/** The JSON document of a run (`--out`); `passed` is what the exit code says. */
export interface SoakReport {
  readonly passed: boolean;
  readonly transfers: SoakVerdict['transfers'];
  readonly chaos: ChaosCounts;
  readonly checks: SoakChecks;
  /** References probed at the end: every unacknowledged one, and `acknowledged` of `ofAcknowledged`. */
  readonly probed: {
    readonly references: number;
    readonly acknowledged: number;
    readonly ofAcknowledged: number;
  };
  readonly replay: ReplayCheck;
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
  const { transfers, chaos, checks, replay } = report;
  const restarts = [...chaos.restartMs].sort((a, b) => a - b);
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
    [
      'service kills (SIGKILL + restart)',
      restarts.length > 0
        ? `${chaos.kills} (back in ${restarts[Math.floor(restarts.length / 2)]} ms median, ${restarts[restarts.length - 1]} ms max)`
        : `${chaos.kills}`,
    ],
    ['connection cuts', `${chaos.cuts}`],
    ['proxy stalls', `${chaos.stalls}`],
    ['service exits not caused by the soak', `${chaos.unexpectedExits}`],
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
    [
      'full replay equals live state',
      `${yes(checks.replayEqual)} (snapshot op ${replay.snapshotOp ?? '-'}, journal ops ${replay.journalOps ?? '-'}, stop exit ${replay.stopExitCode}, verify exit ${replay.verifyExitCode})`,
    ],
    ...(checks.replayEqual ? [] : [['  verify said', replay.verifyReport] as [string, string]]),
    ['verdict', report.passed ? 'PASS' : 'FAIL'],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
}

/** ` [A 3, B 1]`, or nothing for an empty table. */
function codes(table: Record<string, number>): string {
  const entries = Object.entries(table);
  return entries.length === 0 ? '' : ` [${entries.map(([code, n]) => `${code} ${n}`).join(', ')}]`;
}
