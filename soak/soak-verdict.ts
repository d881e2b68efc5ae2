import { type ProbeAnswer } from './reference-probe';
import { ALREADY_APPLIED, type TransferRecord } from './transfer-record';

/** The kinds of violation a run counts. */
type Violation = 'lost' | 'doubled' | 'phantom' | 'inconclusive';

/** How the transfers of the run ended, as their clients saw it (doubled ones are counted as violations). */
export interface TransferCounts {
  attempted: number;
  acknowledged: number;
  refused: number;
  inDoubt: number;
  /** In doubt, and the probe found them applied. */
  inDoubtApplied: number;
  notSent: number;
  failed: number;
}

/** What a run gathered for its verdict. */
export interface SoakEvidence {
  /** Every transfer issued, with what its client learnt. */
  readonly records: readonly TransferRecord[];
  /** Whether the ledger holds each probed reference (see selectProbes for which are). */
  readonly probes: ReadonlyMap<string, ProbeAnswer>;
  readonly initialBalances: ReadonlyMap<string, number>;
  readonly finalBalances: ReadonlyMap<string, number>;
  /** Every node's graceful stop and full replay held (see ReplayCheck.equal). */
  readonly replayEqual: boolean;
  /** In a cluster: every node reached the same state (see ClusterConvergence.identical); else undefined. */
  readonly replicasIdentical: boolean | undefined;
  /** Exits of the service that the soak did not cause. */
  readonly unexpectedExits: number;
}

/** The checks of a run (the report's `checks`). */
export interface SoakChecks {
  /** Acknowledged (or answered ALREADY_APPLIED) transfers the ledger does not hold. */
  readonly lost: number;
  /** Transfers refused DUPLICATE_REFERENCE on their only attempt: applied twice. */
  readonly doubled: number;
  /** Transfers refused by a committed refusal, or never sent, that the ledger holds anyway. */
  readonly phantom: number;
  /** Transfers whose probe settled nothing. */
  readonly inconclusive: number;
  /** The sum of all balances is what was deposited: transfers move money, never create it. */
  readonly conserved: boolean;
  readonly initialTotal: number;
  readonly finalTotal: number;
  readonly reconciled: boolean;
  /**
   * Accounts whose balance differs from the deposits plus exactly one application of
   * every transfer the ledger holds: any doubled, lost or partial application shows here.
   */
  readonly mismatchedAccounts: readonly string[];
  /** See ReplayCheck.equal; in a cluster, of every node. */
  readonly replayEqual: boolean;
  /** Cluster runs only: see ClusterConvergence.identical. */
  readonly replicasIdentical?: boolean;
  /** The service never exited but by the soak's kills (a crash of its own is a failure too). */
  readonly serviceStable: boolean;
}

/** The verdict of a run; `passed` only when every check holds. */
export interface SoakVerdict {
  readonly transfers: TransferCounts;
  readonly checks: SoakChecks;
  readonly passed: boolean;
  /** Up to EXAMPLES references per violation, to start an investigation from. */
  readonly examples: Readonly<Record<Violation, readonly string[]>>;
}

const EXAMPLES = 20;

/**
 * Judges a run. Sound because every reference is issued once: the ledger
 * holds a reference exactly when that one transfer was applied (a second
 * application under it is refused DUPLICATE_REFERENCE, and the client that
 * sent it sees that), and the probe reads exactly that set from the live
 * node without changing it. So: an acknowledged reference missing from the
 * set is a lost acknowledgement; a refused or unsent one in the set is a
 * phantom application; and the balances must equal the deposits moved by
 * each held transfer once. `probes` holds every transfer that was not
 * acknowledged and the acknowledged ones of the sample (see selectProbes).
 */
export function judge({
  records,
  probes,
  initialBalances,
  finalBalances,
  replayEqual,
  replicasIdentical,
  unexpectedExits,
}: SoakEvidence): SoakVerdict {
  const transfers: TransferCounts = {
    attempted: records.length,
    acknowledged: 0,
    refused: 0,
    inDoubt: 0,
    inDoubtApplied: 0,
    notSent: 0,
    failed: 0,
  };
  const examples: Record<Violation, string[]> = {
    lost: [],
    doubled: [],
    phantom: [],
    inconclusive: [],
  };
  const violations: Record<Violation, number> = {
    lost: 0,
    doubled: 0,
    phantom: 0,
    inconclusive: 0,
  };
  const flag = (kind: Violation, reference: string) => {
    violations[kind]++;
    if (examples[kind].length < EXAMPLES) examples[kind].push(reference);
  };
  const expected = new Map(initialBalances);
  for (const record of records) {
    const answer = probes.get(record.reference);
    // An acknowledged transfer left out of the probe sample counts as applied, as its
    // acknowledgement says; only the reconciliation checks it. Any other must be probed.
    const unprobedAcknowledgement = answer === undefined && record.outcome.kind === 'acknowledged';
    const conclusive = answer === 'applied' || answer === 'not-applied';
    const applied = answer === 'applied' || unprobedAcknowledgement;
    if (!conclusive && !unprobedAcknowledgement) {
      flag('inconclusive', `${record.reference} (${answer ?? 'not probed'})`);
    }
    const { outcome } = record;
    switch (outcome.kind) {
      case 'acknowledged':
        transfers.acknowledged++;
        if (conclusive && !applied) flag('lost', record.reference);
        break;
      case 'in-doubt':
        transfers.inDoubt++;
        if (applied) transfers.inDoubtApplied++;
        if (outcome.why === ALREADY_APPLIED && conclusive && !applied) {
          flag('lost', record.reference);
        }
        break;
      case 'refused':
        transfers.refused++;
        if (applied) flag('phantom', `${record.reference} (refused ${outcome.code})`);
        break;
      case 'not-sent':
        transfers.notSent++;
        if (applied) flag('phantom', `${record.reference} (not sent: ${outcome.why})`);
        break;
      case 'duplicate':
        flag('doubled', record.reference);
        break;
      case 'failed':
        transfers.failed++;
        break;
    }
    if (applied) {
      expected.set(record.from, (expected.get(record.from) ?? 0) - record.amount);
      expected.set(record.to, (expected.get(record.to) ?? 0) + record.amount);
    }
  }
  const initialTotal = sum(initialBalances);
  const finalTotal = sum(finalBalances);
  const mismatchedAccounts = [...expected]
    .filter(([account, balance]) => finalBalances.get(account) !== balance)
    .map(([account, balance]) => `${account}: ${finalBalances.get(account)} ≠ ${balance}`);
  const checks: SoakChecks = {
    ...violations,
    conserved: initialTotal === finalTotal,
    initialTotal,
    finalTotal,
    reconciled: violations.inconclusive === 0 && mismatchedAccounts.length === 0,
    mismatchedAccounts,
    replayEqual,
    ...(replicasIdentical !== undefined && { replicasIdentical }),
    serviceStable: unexpectedExits === 0,
  };
  return {
    transfers,
    checks,
    passed:
      Object.values(violations).every((count) => count === 0) &&
      checks.conserved &&
      checks.reconciled &&
      checks.replayEqual &&
      replicasIdentical !== false &&
      checks.serviceStable,
    examples,
  };
}

function sum(balances: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const balance of balances.values()) total += balance;
  return total;
}
