import { Command, Option } from 'commander';
import { nonNegativeInteger, positiveInteger, positiveNumber } from './cli-numbers';
import { scrapeSetupStall } from './event-loop-scrape';
import { type LoadConnection } from './load-connection';
import { runClosedLoop, runFixedCount, runOpenLoop, type WindowTimes } from './load-drivers';
import { type LoadReport } from './load-report';
import { LedgerAccounts } from './ledger-accounts';
import { HttpLoadConnection } from './http-load-connection';
import { LoadStats } from './load-stats';
import { NestTcpLoadConnection } from './nest-tcp-load-connection';
import { OnceLoadConnection } from './once-load-connection';

/** The administrator the reference service creates with a new data directory. */
const ADMIN_USERNAME = 'admin';

/**
 * Child entry: one load generator, in its own process so that the client's
 * CPU is scheduled like any other process and never inside the server's
 * event loop. Prints one JSON line ({@link LoadReport}) on stdout.
 *
 * Modes: closed loop (default), open loop (`--rate`), fixed count
 * (`--requests`, to fill a journal). Target `once` logs in as `admin` with
 * the password in ONCE_ADMIN_PASSWORD; `nest-tcp` sends `echo` messages,
 * `nest-deposit` sends `deposit` messages with a new idempotency key each
 * (the durable peers); `http-deposit` POSTs `/ledger/deposit` with a new
 * `Idempotency-Key` each over keep-alive HTTP/1.1 (the HTTP peers), one
 * request in flight per connection whatever `--depth` says: HTTP/1.1 carries
 * one at a time, and its report says depth 1. For once's ledger HTTP API,
 * `--basic-auth-user admin` sends basic auth (the password in
 * ONCE_ADMIN_PASSWORD), `--open-path /ledger/open` opens each connection's
 * account before the load, and `--ok-status 200` is what a deposit answers.
 */
async function main(): Promise<void> {
  const options = new Command()
    .addOption(
      new Option('--target <target>')
        .choices(['once', 'nest-tcp', 'nest-deposit', 'http-deposit'])
        .makeOptionMandatory(),
    )
    .option('--host <host>', 'server host', '127.0.0.1')
    .requiredOption('--port <port>', 'server port', positiveInteger)
    .requiredOption('--connections <count>', 'connections', positiveInteger)
    .option('--depth <count>', 'closed loop: requests in flight per connection', positiveInteger, 8)
    .requiredOption(
      '--payload-bytes <bytes>',
      'JSON bytes of each request payload',
      positiveInteger,
    )
    .option('--warmup-ms <ms>', 'warm-up before the window', nonNegativeInteger, 1000)
    .option('--duration-ms <ms>', 'measurement window', positiveInteger, 5000)
    .option('--rate <perSecond>', 'open loop: total requests per second', positiveNumber)
    .option('--requests <count>', 'fixed mode: total requests', positiveInteger)
    .option(
      '--accounts <count>',
      'once: deposit into a random one of this many opened accounts (acct-0…) per request',
      positiveInteger,
    )
    .option(
      '--ok-status <status>',
      'http-deposit: the status of an OK answer',
      positiveInteger,
      201,
    )
    .option(
      '--basic-auth-user <name>',
      'http-deposit: send HTTP basic auth as this user, password ONCE_ADMIN_PASSWORD',
    )
    .option(
      '--open-path <path>',
      "http-deposit: POST {account} here for each connection's account before the load",
    )
    .option(
      '--metrics-port <port>',
      "the service's operations listener: scraped once the connections are set up, to start its event-loop window there",
      positiveInteger,
    )
    .option(
      '--drain-ms <ms>',
      'open loop: wait for answers after the window',
      nonNegativeInteger,
      5000,
    )
    .parse(process.argv)
    .opts<{
      target: LoadReport['target'];
      host: string;
      port: number;
      connections: number;
      depth: number;
      payloadBytes: number;
      warmupMs: number;
      durationMs: number;
      rate?: number;
      requests?: number;
      accounts?: number;
      okStatus: number;
      basicAuthUser?: string;
      openPath?: string;
      metricsPort?: number;
      drainMs: number;
    }>();

  const depth = options.target === 'http-deposit' ? 1 : options.depth;
  const stats = new LoadStats();
  const password = process.env.ONCE_ADMIN_PASSWORD ?? '';
  const accounts =
    options.accounts === undefined ? undefined : new LedgerAccounts(options.accounts);
  const connections: LoadConnection[] = await Promise.all(
    Array.from({ length: options.connections }, () =>
      options.target === 'once'
        ? OnceLoadConnection.open(
            { ...options, username: ADMIN_USERNAME, password, accounts },
            stats,
          )
        : options.target === 'http-deposit'
          ? HttpLoadConnection.open(
              {
                ...options,
                basicAuth:
                  options.basicAuthUser === undefined
                    ? undefined
                    : { username: options.basicAuthUser, password },
              },
              stats,
            )
          : NestTcpLoadConnection.open(
              { ...options, pattern: options.target === 'nest-deposit' ? 'deposit' : 'echo' },
              stats,
            ),
    ),
  );

  const setupStall = await scrapeSetupStall(options.metricsPort);

  const window = { warmupMs: options.warmupMs, durationMs: options.durationMs };
  const startedMs = performance.now();
  let mode: LoadReport['mode'];
  let times: WindowTimes | undefined;
  if (options.requests !== undefined) {
    mode = 'fixed';
    await runFixedCount(connections, depth, options.requests);
  } else if (options.rate !== undefined) {
    mode = 'open';
    times = await runOpenLoop(connections, options.rate, window, options.drainMs, stats);
  } else {
    mode = 'closed';
    times = await runClosedLoop(connections, depth, window, stats);
  }
  const elapsedMs = performance.now() - startedMs;
  for (const connection of connections) connection.close();

  const measured = stats.report();
  const durationMs = times ? options.durationMs : elapsedMs;
  const report: LoadReport = {
    target: options.target,
    mode,
    connections: options.connections,
    depth,
    payloadBytes: options.payloadBytes,
    offeredRatePerSecond: options.rate,
    sentPerSecond: (measured.sentInWindow * 1000) / durationMs,
    requestsPerSecond:
      ((times ? measured.completedInWindow : measured.completed) * 1000) / durationMs,
    completed: measured.completed,
    errors: measured.errors,
    latency: measured.latency,
    windowStartEpochMs: times?.startEpochMs,
    windowEndEpochMs: times?.endEpochMs,
    durationMs,
    setupStall,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `load-generator: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
  },
);
