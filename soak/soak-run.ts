import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { OnceClient, type OnceClientOptions } from '@once/sdk';
import { RawClient, ServiceProcess, TcpProxy, bodyJson } from '@once/testing';
import { Chaos, type ChaosCounts } from './chaos';
import { readBalances } from './ledger-balances';
import { INITIAL_BALANCE, accountNames, openAccounts } from './ledger-setup';
import { selectProbes } from './probe-selection';
import { probeReferences } from './reference-probe';
import { stopAndVerify } from './replay-check';
import { SeededRandom } from './seeded-random';
import { type ServiceBuild, snapshotServiceBuild } from './service-build';
import { type SoakOptions } from './soak-options';
import { type SoakReport, outcomeBreakdown } from './soak-report';
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
const RECONNECT = { initialDelayMs: 20, maxDelayMs: 500 } as const;
/** Fresh clients probing references, and probes in flight on each (the node's default ring). */
const PROBE_CLIENTS = 8;
const PROBE_DEPTH = 8;
const PROGRESS_EVERY_MS = 10_000;

/**
 * One soak run, in a fresh run directory: the reference service (its build
 * copied to `build/`, its data in `data/`) behind a TCP proxy, then
 * `soak()`. Resolves with the report, checks failed or not; rejects when the
 * run itself could not be carried out. The service is killed whatever
 * happens; the run directory is removed when every check passed, else kept
 * with the service's log beside the data and the build.
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
  const service = await ServiceProcess.start({
    entry: build.main,
    dataDir: join(workDir, 'data'),
    env: {
      ...build.env,
      ONCE_ADMIN_PASSWORD: password,
      ONCE_SNAPSHOT_EVERY_OPS: String(SNAPSHOT_EVERY_OPS),
      ...(options.clientsMax !== undefined && { ONCE_CLIENTS_MAX: String(options.clientsMax) }),
    },
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
  let passed = false;
  try {
    const proxy = await TcpProxy.start({ targetPort: service.port });
    try {
      const report = await soak({
        service,
        build,
        proxy,
        password,
        options,
        log,
        startedMs,
        workDir,
      });
      passed = report.passed;
      return report;
    } finally {
      await proxy.close();
    }
  } finally {
    await service.crash();
    if (passed) await rm(workDir, { recursive: true, force: true });
    else await writeFile(join(workDir, 'service.log'), service.logs);
  }
}

interface SoakContext {
  readonly service: ServiceProcess;
  readonly build: ServiceBuild;
  readonly proxy: TcpProxy;
  readonly password: string;
  readonly options: SoakOptions;
  readonly log: (line: string) => void;
  readonly startedMs: number;
  readonly workDir: string;
}

/**
 * The run proper: accounts funded; load under chaos; drain; probes and
 * balances through fresh clients straight to the service; a graceful stop
 * and a full replay of the journal; the verdict.
 */
async function soak(context: SoakContext): Promise<SoakReport> {
  const { service, build, password, options, log, startedMs } = context;
  const random = new SeededRandom(options.seed);
  const direct: OnceClientOptions = { port: service.port, username: 'admin', password };
  const accounts = accountNames(options.accounts);
  const setupClient = await OnceClient.connect(direct);
  const initialBalances = await openAccounts(setupClient, accounts);
  await setupClient.close();
  log(`setup: ${accounts.length} accounts, ${INITIAL_BALANCE} each`);

  const loadStartedMs = performance.now();
  const { clients, chaos, drainStartedMs } = await loadUnderChaos(context, accounts, random);
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
  const committedOp = await commitOp(service.port);

  const replayStartedMs = performance.now();
  log(`probed; stopping the service and replaying its journal (${committedOp} ops) from op 1`);
  const replay = await stopAndVerify(service, build, committedOp);
  const verdict = judge({
    records,
    probes,
    initialBalances,
    finalBalances,
    replay,
    unexpectedExits: chaos.unexpectedExits,
  });
  const endedMs = performance.now();
  // The settings are the options but `out`, where this report goes.
  const { out: _out, ...settings } = options;
  return {
    passed: verdict.passed,
    transfers: verdict.transfers,
    chaos,
    checks: verdict.checks,
    probed: {
      references: selection.records.length,
      acknowledged: selection.acknowledgedProbed,
      ofAcknowledged: selection.acknowledged,
    },
    replay,
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
    dataDir: verdict.passed ? undefined : context.workDir,
  };
}

/**
 * The load clients issue transfers through the proxy for the run's duration
 * while the chaos runs; then the chaos stops (the service runs again), the
 * clients stop issuing, every transfer settles (the drain) and the clients
 * close without LOGOUT.
 */
async function loadUnderChaos(
  { service, proxy, password, options, log }: SoakContext,
  accounts: readonly string[],
  random: SeededRandom,
): Promise<{ clients: TransferClient[]; chaos: ChaosCounts; drainStartedMs: number }> {
  const clients = await Promise.all(
    Array.from({ length: options.clients }, (_, index) =>
      TransferClient.connect(
        { port: proxy.port, username: 'admin', password, reconnect: RECONNECT },
        `c${index}`,
        accounts,
        random.fork(100 + index),
        options.depth,
      ),
    ),
  );
  const loadStartedMs = performance.now();
  log(
    `load: ${clients.length} clients × depth ${options.depth} through the proxy for ${options.durationMs / 1000} s`,
  );
  let stopping = false;
  const runs = clients.map((client) => client.run(() => stopping));
  const chaos = new Chaos(
    service,
    proxy,
    random.fork(0),
    options.killEveryMs,
    options.faultEveryMs,
  );
  const progress = setInterval(() => {
    const issued = clients.reduce((total, client) => total + client.issued, 0);
    const { kills, cuts, stalls } = chaos.counts;
    log(
      `  ${Math.round((performance.now() - loadStartedMs) / 1000)} s: ${issued} transfers issued; ` +
        `${kills} kills, ${cuts} cuts, ${stalls} stalls`,
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
  return { clients, chaos: counts, drainStartedMs };
}

/** The node's highest committed op, by PING. */
async function commitOp(port: number): Promise<number> {
  const client = await RawClient.connect(port);
  try {
    return (bodyJson(await client.ping()) as { commit: number }).commit;
  } finally {
    client.destroy();
  }
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
