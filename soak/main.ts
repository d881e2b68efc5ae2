import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { CommanderError } from 'commander';
import { exitOnSignals } from '../bench/exit-on-signals';
import { parseSoakOptions } from './soak-options';
import { summaryTable } from './soak-report';
import { runSoak } from './soak-run';

/** Where the cluster's `nats-server` is: a setting of the test harness, kept (see main). */
const NATS_SERVER_BIN = 'ONCE_NATS_SERVER_BIN';

/** Exit codes: every check passed; a check failed; the tool itself could not run (or bad flags). */
const EXIT_PASSED = 0;
const EXIT_CHECK_FAILED = 1;
const EXIT_TOOL_FAILED = 2;

/**
 * `npm run soak -- --minutes N --clients C [...]`: proves, for one run, that
 * nothing acknowledged is lost and nothing is applied twice while the service
 * is SIGKILLed and its connections are cut and stalled (see soak/README.md).
 */
async function main(): Promise<number> {
  const options = parseSoakOptions(process.argv);
  // The service runs on the soak's settings and its defaults, whatever the calling shell set;
  // only the harness's own setting, which the service ignores, is kept.
  for (const name of Object.keys(process.env)) {
    if (name.startsWith('ONCE_') && name !== NATS_SERVER_BIN) delete process.env[name];
  }
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(
    `once soak${options.cluster ? ' --cluster (3 NATS servers, 3 nodes)' : ''}: seed ${options.seed}; ${options.clients} clients × depth ${options.depth}, ${options.accounts} accounts, ` +
      `${options.durationMs / 1000} s; kill every ${options.killEveryMs.minMs}-${options.killEveryMs.maxMs} ms, ` +
      `cut or stall every ${options.faultEveryMs.minMs}-${options.faultEveryMs.maxMs} ms`,
  );
  const report = await runSoak(options, log);
  log('');
  log(summaryTable(report));
  if (report.dataDir)
    log(
      `run directory kept for inspection (build/, ${options.cluster ? 'node*/, node*.log, nats-*.log' : 'data/, service.log'}): ${report.dataDir}`,
    );
  if (options.out) {
    const file = resolve(options.out);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    log(`report written to ${file}`);
  }
  return report.passed ? EXIT_PASSED : EXIT_CHECK_FAILED;
}

exitOnSignals();

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof CommanderError) {
      process.exit(error.exitCode === 0 ? EXIT_PASSED : EXIT_TOOL_FAILED);
    }
    process.stderr.write(`soak failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(EXIT_TOOL_FAILED);
  },
);
