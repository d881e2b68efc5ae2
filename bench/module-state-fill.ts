import { Command } from 'commander';
import { OnceClient } from '@once/sdk';
import { positiveInteger } from './cli-numbers';
import { type EventLoopScrape, scrapeSetupStall } from './event-loop-scrape';
import { LedgerAccounts } from './ledger-accounts';

/** The JSON line module-state-fill prints. */
export interface ModuleStateFillReport {
  /** Accounts opened (`acct-0` … up to `--accounts`). */
  readonly accounts: number;
  readonly clients: number;
  /** Commands each client kept in flight. */
  readonly depth: number;
  /** Connecting and REGISTERing the clients. */
  readonly setupMs: number;
  /**
   * With `--metrics-port`: the service's event loop while the clients
   * connected (a scrypt per REGISTER), scraped before the first open, so the
   * service's next window holds the opens alone.
   */
  readonly setupStall?: EventLoopScrape;
  /** The opens themselves. */
  readonly elapsedMs: number;
  readonly requestsPerSecond: number;
}

/** The administrator the reference service creates with a new data directory. */
const ADMIN_USERNAME = 'admin';
/**
 * Clients connected at once: each REGISTER costs the service a scrypt, so
 * dozens at once would queue past the SDK's connect timeout on a busy machine.
 */
const CONNECT_BATCH = 8;
/** A snapshot of millions of records may hold answers back; only a hang should fail. */
const REQUEST_TIMEOUT_MS = 600_000;

/**
 * Child entry: fills the reference service's ledger with `--accounts`
 * accounts through the SDK, as a team's clients would: `--clients`
 * OnceClients (REGISTERed as `admin` with ONCE_ADMIN_PASSWORD), each
 * keeping `--depth` `ledger.open` commands in flight (the SDK pipelines
 * them on its session), account `i` sent by client `i mod clients`. Any
 * refusal or error fails the fill. Prints one {@link ModuleStateFillReport}.
 */
async function main(): Promise<void> {
  const options = new Command()
    .option('--host <host>', 'server host', '127.0.0.1')
    .requiredOption('--port <port>', 'server port', positiveInteger)
    .requiredOption('--accounts <count>', 'accounts to open', positiveInteger)
    .requiredOption('--clients <count>', 'SDK clients', positiveInteger)
    .requiredOption('--depth <count>', 'commands in flight per client', positiveInteger)
    .option(
      '--metrics-port <port>',
      "the service's operations listener: scraped once the clients are connected",
      positiveInteger,
    )
    .parse(process.argv)
    .opts<{
      host: string;
      port: number;
      accounts: number;
      clients: number;
      depth: number;
      metricsPort?: number;
    }>();
  const accounts = new LedgerAccounts(options.accounts);

  const setupStartMs = performance.now();
  const clients: OnceClient[] = [];
  try {
    while (clients.length < options.clients) {
      const batch = Math.min(CONNECT_BATCH, options.clients - clients.length);
      clients.push(
        ...(await Promise.all(
          Array.from({ length: batch }, () =>
            OnceClient.connect({
              host: options.host,
              port: options.port,
              username: ADMIN_USERNAME,
              password: process.env.ONCE_ADMIN_PASSWORD ?? '',
              inFlightMax: options.depth,
              requestTimeoutMs: REQUEST_TIMEOUT_MS,
            }),
          ),
        )),
      );
    }
    const setupMs = performance.now() - setupStartMs;
    const setupStall = await scrapeSetupStall(options.metricsPort);

    const startMs = performance.now();
    await Promise.all(
      clients.map(async (client, first) => {
        // `depth` lanes per client, each awaiting its previous open: the
        // client has `depth` commands in flight until its share runs out.
        const lanes = Array.from({ length: options.depth }, async (_, lane) => {
          const stride = options.clients * options.depth;
          for (
            let index = first + lane * options.clients;
            index < options.accounts;
            index += stride
          ) {
            await client.command('ledger.open', { account: accounts.name(index) });
          }
        });
        await Promise.all(lanes);
      }),
    );
    const elapsedMs = performance.now() - startMs;
    const report: ModuleStateFillReport = {
      accounts: options.accounts,
      clients: options.clients,
      depth: options.depth,
      setupMs,
      setupStall,
      elapsedMs,
      requestsPerSecond: (options.accounts * 1000) / elapsedMs,
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await Promise.all(clients.map((client) => client.close({ force: true })));
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `module-state-fill: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
  },
);
