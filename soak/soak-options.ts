import { randomInt } from 'node:crypto';
import { Command, Option } from 'commander';
import { positiveInteger, positiveNumber } from '../bench/cli-numbers';
import { type RangeMs, countOrAll, rangeMs, seedValue } from './cli-values';

/** Everything that sizes one soak run. */
export interface SoakOptions {
  /**
   * Run the service as a cluster (three NATS servers, three nodes, each node
   * behind its own proxy) and kill its leader rather than the one service.
   */
  readonly cluster: boolean;
  /** How long the clients issue transfers under chaos. */
  readonly durationMs: number;
  /** Load clients, each an OnceClient with its own client id (session). */
  readonly clients: number;
  readonly accounts: number;
  /** The SDK's inFlightMax of each load client, and the commands each keeps outstanding. */
  readonly depth: number;
  /**
   * The service's client table capacity (ONCE_CLIENTS_MAX); undefined: its
   * default. Below `clients`, the load clients' sessions evict each other and
   * their in-doubt transfers must be settled by reference.
   */
  readonly clientsMax: number | undefined;
  readonly seed: number;
  /** Delay between two SIGKILLs of the service, or of a cluster's node (each followed by a restart). */
  readonly killEveryMs: RangeMs;
  /** Delay between two network faults (a cut of every proxied connection, or a stall). */
  readonly faultEveryMs: RangeMs;
  /** Acknowledged transfers probed at most (a seeded sample beyond); Infinity: all. */
  readonly probeAcknowledged: number;
  /**
   * ONCE_JOURNAL_RETAIN of the service (snapshots' worth of journal kept);
   * undefined: keep everything. The run then also checks the data
   * directory's size stayed flat (see DiskUsage.bounded).
   */
  readonly retain: number | undefined;
  /** Where to write the JSON report, if anywhere. */
  readonly out: string | undefined;
}

/**
 * Above the node's default ring (8) a resent command may be answered
 * ALREADY_APPLIED (recorded as in doubt); far deeper only queues in the SDK.
 */
const MAX_DEPTH = 256;
/**
 * Each probe is a journaled command, as costly as a transfer: probing all of
 * a one-minute run would take about as long as the run. Beyond this many, a
 * sample (and the balance reconciliation) covers the acknowledged transfers.
 */
const DEFAULT_PROBE_ACKNOWLEDGED = 100_000;

/**
 * Parses the soak's flags (`npm run soak -- --minutes 5 --clients 16`). A bad
 * flag throws commander's CommanderError after printing why (exitOverride: the
 * caller chooses the exit code, so that a usage error is not mistaken for a
 * failed check); `--help` throws one with exit code 0.
 */
export function parseSoakOptions(argv: readonly string[]): SoakOptions {
  const command = new Command()
    .exitOverride()
    .name('npm run soak --')
    .description(
      'soak test of the once service: pipelined ledger transfers under SIGKILLs, connection cuts ' +
        'and stalls; checks that nothing acknowledged is lost or applied twice. ' +
        'Exit code 0: every check passed; 1: a check failed; 2: the tool itself failed.',
    )
    .option(
      '--cluster',
      'run the service as a cluster of 3 nodes on 3 NATS servers (nats-server on PATH, or ONCE_NATS_SERVER_BIN) and SIGKILL its leader',
      false,
    )
    .option('--minutes <minutes>', 'how long the load runs under chaos', positiveNumber, 1)
    .option('--clients <count>', 'load clients (one session each)', positiveInteger, 8)
    .option(
      '--accounts <count>',
      'ledger accounts the transfers move money between',
      positiveInteger,
      16,
    )
    .option(
      '--depth <count>',
      'commands in flight per client (the SDK inFlightMax)',
      positiveInteger,
      8,
    )
    .option(
      '--clients-max <count>',
      "the service's client table capacity (default: the service's own); below --clients, sessions evict each other",
      positiveInteger,
    )
    .option(
      '--seed <uint32>',
      'seed of every random choice (default: a random one, printed)',
      seedValue,
    )
    .addOption(
      rangeOption(
        '--kill-every-ms',
        'delay between SIGKILLs of the service (with --cluster: of its leader, every third time of a follower)',
        '4000-10000',
      ),
    )
    .addOption(
      rangeOption('--fault-every-ms', 'delay between connection cuts or stalls', '1000-3000'),
    )
    .addOption(
      new Option(
        '--probe-acknowledged <count|all>',
        'acknowledged transfers probed at the end, at most (a random sample beyond; every other transfer is always probed)',
      )
        .argParser(countOrAll)
        .default(DEFAULT_PROBE_ACKNOWLEDGED, String(DEFAULT_PROBE_ACKNOWLEDGED)),
    )
    .option(
      '--retain <snapshots>',
      "the service's ONCE_JOURNAL_RETAIN (at least 2, so verify has a later snapshot to compare with); the run checks its data directory stays the same size",
      positiveInteger,
    )
    .option('--out <file>', 'also write the report as JSON to this file');
  const flags = command.parse(argv).opts<{
    cluster: boolean;
    minutes: number;
    clients: number;
    accounts: number;
    depth: number;
    clientsMax?: number;
    seed?: number;
    killEveryMs: RangeMs;
    faultEveryMs: RangeMs;
    probeAcknowledged: number;
    retain?: number;
    out?: string;
  }>();
  if (flags.accounts < 2) command.error('--accounts must be at least 2 (a transfer needs two)');
  if (flags.depth > MAX_DEPTH) command.error(`--depth must be at most ${MAX_DEPTH}`);
  if (flags.retain !== undefined && flags.retain < 2) command.error('--retain must be at least 2');
  return {
    cluster: flags.cluster,
    durationMs: Math.round(flags.minutes * 60_000),
    clients: flags.clients,
    accounts: flags.accounts,
    depth: flags.depth,
    clientsMax: flags.clientsMax,
    seed: flags.seed ?? randomInt(0x1_0000_0000),
    killEveryMs: flags.killEveryMs,
    faultEveryMs: flags.faultEveryMs,
    probeAcknowledged: flags.probeAcknowledged,
    retain: flags.retain,
    out: flags.out,
  };
}

/** A `<min-max>` flag in ms whose help shows its default as it is typed. */
function rangeOption(flag: string, description: string, defaultRange: string): Option {
  return new Option(`${flag} <min-max>`, description)
    .argParser(rangeMs)
    .default(rangeMs(defaultRange), defaultRange);
}
