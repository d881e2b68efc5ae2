import 'reflect-metadata';
import { type INestApplication, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { LogEvent } from '@once/engine';
import { OnceRuntime } from '@once/framework';
import { type GatewayTlsOptions, OnceServer } from '@once/gateway';
import { readFileSync } from 'node:fs';
import { AppModule, adminGenesis } from './app.module';
import { fatalLine } from './fatal-error';
import { truncateCorruptTailOf } from './maintenance/truncate-corrupt-tail';
import { verifyJournal } from './maintenance/verify-journal';
import { operationsOptionsOf } from './operations/operations-http-config';
import { ServiceLogger } from './service-logger';
import { nodeFactoryOf } from './config/cluster-mode';
import {
  ConfigError,
  type LogLevelName,
  type ServerConfig,
  loadServerConfig,
  serverConfigHelp,
} from './config/server-config';

const LEVELS: LogLevelName[] = ['error', 'warn', 'log', 'debug', 'verbose'];

/** The format fatal errors are printed in: the configured one once the settings are read. */
let fatalFormat: ServerConfig['logFormat'] = 'text';

/**
 * The reference service: `npm start`, or `npm run build && npm run start:prod`.
 * Exit codes: 0 after a graceful stop (SIGTERM/SIGINT), 1 when the node cannot
 * start or its journal is corrupt, 2 for invalid settings.
 */
async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(serverConfigHelp());
    return;
  }
  let config: ServerConfig;
  try {
    config = loadServerConfig(process.argv, process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`once: invalid setting: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  fatalFormat = config.logFormat;
  const logger = new ServiceLogger({
    json: config.logFormat === 'json',
    colors: config.logFormat === 'text' && Boolean(process.stdout.isTTY),
    logLevels: LEVELS.slice(0, LEVELS.indexOf(config.logLevel) + 1),
  });
  for (const deprecation of config.deprecations) logger.warn(deprecation, 'Once');
  if (config.verify) process.exit(await verifyJournal(config, logger));
  if (config.truncateCorruptTail) process.exit(await truncateCorruptTailOf(config, logger));
  // The last line of a run, whatever ends it: a graceful stop, a failed boot, a fatal error.
  const run: { runtime?: OnceRuntime } = {};
  process.once('exit', (code) => {
    const runtime = run.runtime;
    const op = runtime?.opened ? runtime.engine.commitOp : undefined;
    const text = `stopped${op === undefined ? '' : ` at op ${op}`} (exit code ${code})`;
    logger.log(new LogEvent('stopped', text, { op: op ?? null, exitCode: code }), 'Once');
  });

  const strategy = new OnceServer({
    host: config.host,
    port: config.port,
    frameBytesMax: config.frameBytesMax,
    connectionsMax: config.connectionsMax,
    pendingEntriesMax: config.pendingEntriesMax,
    writeBufferBytesMax: config.writeBufferBytesMax,
    partialFrameTimeoutMs: config.partialFrameTimeoutMs,
    idleUnboundTimeoutMs: config.idleUnboundTimeoutMs,
    registerFailuresPerAddressPerMinuteMax: config.registerFailuresPerAddressPerMinuteMax,
    registerFailuresPerConnectionMax: config.registerFailuresPerConnectionMax,
    registerFailuresPerUserPerMinuteMax: config.registerFailuresPerUserPerMinuteMax,
    connectionsPerAddressMax: config.connectionsPerAddressMax,
    unboundTimeoutMs: config.unboundTimeoutMs,
    tls: readTls(config),
  });
  const appModule = AppModule.register(
    {
      dataDir: config.dataDir,
      clientsMax: config.clientsMax,
      ring: config.ring,
      sessionTtlMs: config.sessionTtlMs,
      httpKeyRetentionMs: config.httpKeyRetentionMs,
      httpKeysMax: config.httpKeysMax,
      snapshotEveryOps: config.snapshotEveryOps,
      keyedCacheEntries: config.keyedCacheEntries,
      keyedCacheBytes: config.keyedCacheBytes,
      checkpointIntervalMs: config.checkpointIntervalMs,
      journalRetain: config.journalRetain,
      replyChecks: config.replyChecks === 'on',
      upgradeFinalization: config.upgradeFinalization,
      retired: { states: config.retiredStates, commands: config.retiredCommands },
      genesis: adminGenesis(config.adminPassword, {
        // Said when the user is created, not at every start: an existing
        // directory's admin may have changed the password since.
        warning: config.adminPasswordIsDefault
          ? 'the user admin was created with the default password "admin" (ONCE_ADMIN_PASSWORD was not set; allowed on a loopback host only): change it with users.changePassword'
          : undefined,
      }),
      node: nodeFactoryOf(config),
    },
    operationsOptionsOf(config),
  );
  // With ONCE_HTTP_PORT the service is a NestJS HTTP application with the
  // once transport connected to it; without, a microservice alone. The same
  // modules either way, so the code manifest does not depend on the port.
  const httpPort = config.httpPort;
  let app: INestMicroservice | INestApplication;
  let listen: () => Promise<void>;
  if (httpPort === undefined) {
    const service = await NestFactory.createMicroservice(appModule, {
      strategy,
      logger,
      abortOnError: false,
    });
    app = service;
    listen = () => service.listen();
  } else {
    const http = await NestFactory.create(appModule, { logger, abortOnError: false });
    http.connectMicroservice({ strategy }, { inheritAppConfig: true });
    app = http;
    listen = async () => {
      await http.startAllMicroservices();
      await http.listen(httpPort, config.host);
      logger.log(`ledger HTTP API at ${await http.getUrl()}`, 'Once');
    };
  }

  // The framework drains, snapshots and closes on SIGTERM/SIGINT; exit 0 after it.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });

  const runtime = app.get(OnceRuntime);
  run.runtime = runtime;
  await listen();
  runtime.whenReady().catch((error: unknown) => {
    process.stderr.write(fatalLine('cannot serve', error, fatalFormat));
    process.exit(1);
  });
}

/** The TLS key material named by the settings, read now so a bad path stops the start. */
function readTls(config: ServerConfig): GatewayTlsOptions | undefined {
  if (!config.tlsKeyFile || !config.tlsCertFile) return undefined;
  const read = (file: string, what: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new ConfigError(`cannot read the TLS ${what} ${file}: ${(error as Error).message}`);
    }
  };
  return {
    key: read(config.tlsKeyFile, 'key'),
    cert: read(config.tlsCertFile, 'certificate'),
    ca: config.tlsCaFile ? read(config.tlsCaFile, 'CA bundle') : undefined,
  };
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`once: invalid setting: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(fatalLine('cannot start', error, fatalFormat));
  process.exit(1);
});
