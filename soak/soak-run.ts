import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { OnceClient, type OnceClientOptions } from '@once/sdk';
import { AcknowledgementWatch } from './acknowledgement-watch';
import { type ChaosCounts } from './chaos';
import { DiskSampler, type DiskUsage } from './disk-usage';
import { ClusterTarget } from './cluster-target';
import { readBalances } from './ledger-balances';
import { INITIAL_BALANCE, accountNames, openAccounts } from './ledger-setup';
import { selectProbes } from './probe-selection';
import { probeReferences } from './reference-probe';
import { SeededRandom } from './seeded-random';
import { snapshotServiceBuild } from './service-build';
import { SingleTarget } from './single-target';
import { type SoakOptions } from './soak-options';
import { type SoakReport, failoverSummary, outcomeBreakdown } from './soak-report';
import { type SoakTarget } from './soak-target';
import { judge } from './soak-verdict';
import { TransferClient } from './transfer-client';

/** ONCE_SNAPSHOT_EVERY_OPS of the service: small, so snapshots are written (and restored) during the run. */
const SNAPSHOT_EVERY_OPS = 5_000;
/** How long a (re)start may take to answer PING ready; generous for a busy 2-core machine. */
const READY_TIMEOUT_MS = 60_000;
/**
 * The load clients' reconnect backoff: short, so they come back soon after a
 * restart (the soak is about what happens to their commands, not about waiting).
 */
const RECONNECT = { initialDelayMs: 20, delayMsMax: 500 } as const;
/** Fresh clients probing references, and probes in flight on each (the node's default ring). */
const PROBE_CLIENTS = 8;
const PROBE_DEPTH = 8;
const PROGRESS_EVERY_MS = 10_000;
/** How often the data directories' size is read during the load. */
const DISK_SAMPLE_EVERY_MS = 2_000;

/**
 * One soak run, in a fresh run directory: the reference service (its build
 * copied to `build/`), as one process (data in `data/`) or with `--cluster`
 * as three nodes on three NATS servers (data in `node1/`…), behind TCP
 * proxies, then `soak()`. Resolves with the report, checks failed or not;
 * rejects when the run itself could not be carried out. Every process is
 * killed whatever happens; the run directory is removed when every check
 * passed, else kept with the processes' logs beside the data and the build.
 */
export async function runSoak(
  options: SoakOptions,
  log: (line: string) => void,
): Promise<SoakReport> {
  const startedMs = performance.now();
  const workDir = await mkdtemp(join(tmpdir(), 'once-soak-'));
  log(`run directory ${workDir}`);
  const password = randomBytes(16).toString('hex');
  const build = await snapshotServiceBuild(join(workDir, 'build'));
  const settings = {
    env: {
      ...build.env,
      ONCE_ADMIN_PASSWORD: password,
      ONCE_SNAPSHOT_EVERY_OPS: String(SNAPSHOT_EVERY_OPS),
      ...(options.clientsMax !== undefined && { ONCE_CLIENTS_MAX: String(options.clientsMax) }),
      ...(options.retain !== undefined && { ONCE_JOURNAL_RETAIN: String(options.retain) }),
    },
    readyTimeoutMs: READY_TIMEOUT_MS,
  };
  const run = { workDir, build, settings };
  const target = options.cluster ? await ClusterTarget.start(run) : await SingleTarget.start(run);
  let passed = false;
  try {
    const report = await soak({ target, password, options, log, startedMs, workDir });
    passed = report.passed;
    return report;
  } finally {
    if (!passed) await target.writeLogs();
    await target.close();
    if (passed) await rm(workDir, { recursive: true, force: true });
  }
}

interface SoakContext {
  readonly target: SoakTarget;
  readonly password: string;
  readonly options: SoakOptions;
  readonly log: (line: string) => void;
  readonly startedMs: number;
  readonly workDir: string;
}

/**
 * The run proper: accounts funded; load under chaos; drain; probes and
 * balances through fresh clients; a graceful stop and a full replay of each
 * journal (in a cluster, the nodes' states compared); the verdict.
 */
async function soak(context: SoakContext): Promise<SoakReport> {
  const { target, password, options, log, startedMs } = context;
  const random = new SeededRandom(options.seed);
  const direct: OnceClientOptions = { ...target.directAddress, username: 'admin', password };
  const accounts = accountNames(options.accounts);
  const setupClient = await OnceClient.connect(direct);
  const initialBalances = await openAccounts(setupClient, accounts);
  await setupClient.close();
  log(`setup: ${accounts.length} accounts, ${INITIAL_BALANCE} each`);

  const loadStartedMs = performance.now();
  const { clients, chaos, drainStartedMs, disk } = await loadUnderChaos(context, accounts, random);
  const records = clients.flatMap((client) => client.records);

  const probeStartedMs = performance.now();
  const selection = selectProbes(records, options.probeAcknowledged, random.fork(3));
  log(
    `drained: ${records.length} transfers settled; probing ${selection.records.length} references ` +
      `(every unacknowledged one, ${selection.acknowledgedProbed} of ${selection.acknowledged} acknowledged)`,
  );
  // Fewer probe clients than the table holds, so that probes never evict each other.
  const probeClients = Math.max(1, Math.min(PROBE_CLIENTS, (options.clientsMax ?? Infinity) - 1));
  const probes = await probeReferences(direct, selection.records, probeClients, PROBE_DEPTH);
  const reader = await OnceClient.connect(direct);
  const finalBalances = await readBalances(reader, accounts);
  await reader.close();
  const committedOp = await target.settle();

  const replayStartedMs = performance.now();
  log(
    `probed; stopping the ${options.cluster ? 'nodes' : 'service'} and replaying ` +
      `${options.cluster ? 'each' : 'its'} journal (${committedOp} ops) from ${options.retain === undefined ? 'op 1' : 'its oldest kept snapshot'}`,
  );
  const verification = await target.stopAndVerify(committedOp);
  const verdict = judge({
    records,
    probes,
    initialBalances,
    finalBalances,
    replayEqual: verification.replays.every((replay) => replay.equal),
    replicasIdentical: verification.cluster?.identical,
    unexpectedExits: chaos.unexpectedExits,
  });
  // With retention, a data directory that kept growing fails the run: bounding it is the point.
  const diskBounded = options.retain === undefined || disk.bounded !== false;
  const endedMs = performance.now();
  // The settings are the options but `out`, where this report goes.
  const { out: _out, ...settings } = options;
  return {
    passed: verdict.passed && diskBounded,
    transfers: verdict.transfers,
    chaos,
    failover: failoverSummary(chaos),
    checks: verdict.checks,
    probed: {
      references: selection.records.length,
      acknowledged: selection.acknowledgedProbed,
      ofAcknowledged: selection.acknowledged,
    },
    replays: verification.replays,
    disk,
    cluster: verification.cluster,
    breakdown: outcomeBreakdown(records),
    clients: clientEvents(clients),
    examples: verdict.examples,
    settings: { ...settings, snapshotEveryOps: SNAPSHOT_EVERY_OPS },
    elapsedMs: {
      setup: Math.round(loadStartedMs - startedMs),
      load: Math.round(drainStartedMs - loadStartedMs),
      drain: Math.round(probeStartedMs - drainStartedMs),
      probe: Math.round(replayStartedMs - probeStartedMs),
      replay: Math.round(endedMs - replayStartedMs),
      total: Math.round(endedMs - startedMs),
    },
    dataDir: verdict.passed && diskBounded ? undefined : context.workDir,
  };
}

/**
 * The load clients issue transfers through the proxies for the run's
 * duration while the chaos runs; then the chaos stops (every process runs
 * again), the clients stop issuing, every transfer settles (the drain) and
 * the clients close without LOGOUT.
 */
async function loadUnderChaos(
  { target, password, options, log }: SoakContext,
  accounts: readonly string[],
  random: SeededRandom,
): Promise<{
  clients: TransferClient[];
  chaos: ChaosCounts;
  drainStartedMs: number;
  disk: DiskUsage;
}> {
  const watch = new AcknowledgementWatch();
  const clients = await Promise.all(
    Array.from({ length: options.clients }, (_, index) =>
      TransferClient.connect(
        { ...target.loadAddress, username: 'admin', password, reconnect: RECONNECT },
        `c${index}`,
        accounts,
        random.fork(100 + index),
        options.depth,
        watch,
      ),
    ),
  );
  const loadStartedMs = performance.now();
  log(
    `load: ${clients.length} clients × depth ${options.depth} through the proxies for ${options.durationMs / 1000} s`,
  );
  let stopping = false;
  const runs = clients.map((client) => client.run(() => stopping));
  const chaos = target.startChaos(random.fork(0), options, watch);
  const sampler = new DiskSampler(
    target.dataDirs,
    DISK_SAMPLE_EVERY_MS,
    target.serviceLogs && (() => target.serviceLogs!()),
  );
  const progress = setInterval(() => {
    const issued = clients.reduce((total, client) => total + client.issued, 0);
    const { kills, cuts, stalls } = chaos.counts;
    const latest = sampler.latest;
    const disk =
      latest === undefined
        ? ''
        : `; data ${(latest.bytes / 1048576).toFixed(1)} MiB` +
          (latest.journalEntries === undefined
            ? ''
            : `, journal ${latest.journalEntries} entries at its last snapshot`);
    log(
      `  ${Math.round((performance.now() - loadStartedMs) / 1000)} s: ${issued} transfers issued; ` +
        `${kills} kills, ${cuts} cuts, ${stalls} stalls${disk}`,
    );
  }, PROGRESS_EVERY_MS);
  try {
    await Promise.race([delay(options.durationMs), chaos.running]);
  } finally {
    clearInterval(progress);
  }
  const counts = await chaos.stop();
  stopping = true;
  const drainStartedMs = performance.now();
  await Promise.all(runs);
  await Promise.all(clients.map((client) => client.close()));
  const disk = await sampler.stop();
  return { clients, chaos: counts, drainStartedMs, disk };
}

/** The load clients' events, summed over the clients. */
function clientEvents(clients: readonly TransferClient[]): SoakReport['clients'] {
  const sessionsLost: Record<string, number> = {};
  for (const reason of clients.flatMap((client) => client.events.sessionsLost)) {
    sessionsLost[reason] = (sessionsLost[reason] ?? 0) + 1;
  }
  const total = (count: (client: TransferClient) => number) =>
    clients.reduce((sum, client) => sum + count(client), 0);
  return {
    disconnects: total((client) => client.events.disconnects),
    resumedByToken: total((client) => client.events.resumedByToken),
    resumedByRegister: total((client) => client.events.resumedByRegister),
    sessionsLost,
    stoppedEarly: total((client) => (client.stoppedEarly ? 1 : 0)),
  };
}
