import 'reflect-metadata';
import { ConsoleLogger, type DynamicModule, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type * as ClusterPackage from '@once/cluster';
import {
  ONCE_AUTHENTICATOR,
  OnceModule,
  type OnceModuleOptions,
  OnceRuntime,
} from '@once/framework';
import { OnceServer } from '@once/gateway';
import {
  readEnvSetting,
  redactSecrets,
  setting,
  settingDefault,
  type SettingName,
  type SettingValue,
} from '@once/settings';
import { StaticAuthenticator } from './static-authenticator';

/**
 * The entry of a service assembled from a team's modules (see
 * `ServiceProcess.start({ modules })`). Reads:
 * - ONCE_TEST_MODULES: JSON `[{ "path": "/abs/file.ts", "export": "LedgerModule" }]`;
 * - ONCE_TEST_USERS: JSON `{ "alice": "pw" }` for a static authenticator (ids 1, 2, …),
 *   unless one of the modules provides ONCE_AUTHENTICATOR;
 * - ONCE_TEST_GENESIS: JSON `[{ "pattern": …, "data": … }]`, OnceModule's `genesis`;
 * - ONCE_DATA_DIR, ONCE_PORT, ONCE_HOST, ONCE_RING, ONCE_CLIENTS_MAX, ONCE_SESSION_TTL_MS,
 *   ONCE_SNAPSHOT_EVERY_OPS, ONCE_JOURNAL_RETAIN, ONCE_REPLY_CHECKS, ONCE_RETIRED_STATES,
 *   ONCE_RETIRED_COMMANDS, ONCE_UPGRADE_FINALIZATION, parsed as the settings table says
 *   (old names accepted);
 * - cluster mode when ONCE_NATS_SERVERS and ONCE_NODE_ID are set (see `clusterOf`).
 */
async function main(): Promise<void> {
  const env = process.env;
  const specs = JSON.parse(env.ONCE_TEST_MODULES ?? '[]') as Array<{
    path: string;
    export: string;
  }>;
  const modules = specs.map(({ path, export: name }) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- modules are named at run time
    const loaded = (require(path) as Record<string, unknown>)[name];
    if (typeof loaded !== 'function') throw new Error(`${path} exports no module named ${name}`);
    return loaded as Type;
  });
  const genesis = env.ONCE_TEST_GENESIS
    ? (JSON.parse(env.ONCE_TEST_GENESIS) as OnceModuleOptions['genesis'])
    : undefined;
  const users = env.ONCE_TEST_USERS
    ? (JSON.parse(env.ONCE_TEST_USERS) as Record<string, string>)
    : undefined;
  const read = <N extends SettingName>(name: N): SettingValue<N> | undefined => {
    const { value, deprecation } = readEnvSetting(setting(name), env);
    if (deprecation !== undefined) process.stderr.write(`once test service: ${deprecation}\n`);
    return value as SettingValue<N> | undefined;
  };

  @Module({})
  class TestServiceModule {
    static register(): DynamicModule {
      return {
        module: TestServiceModule,
        imports: [
          OnceModule.forRoot({
            dataDir: read('dataDir') ?? settingDefault('dataDir'),
            ring: read('ring'),
            clientsMax: read('clientsMax'),
            sessionTtlMs: read('sessionTtlMs'),
            httpKeyRetentionMs: read('httpKeyRetentionMs'),
            httpKeysMax: read('httpKeysMax'),
            snapshotEveryOps: read('snapshotEveryOps'),
            keyedCacheEntries: read('keyedCacheEntries'),
            keyedCacheBytes: read('keyedCacheBytes'),
            checkpointIntervalMs: read('checkpointIntervalMs'),
            journalRetain: read('journalRetain'),
            replyChecks: read('replyChecks') !== 'off',
            upgradeFinalization: read('upgradeFinalization') === 'hold' ? 'hold' : 'auto',
            retired: {
              states: listOf(read('retiredStates')),
              commands: listOf(read('retiredCommands')),
            },
            genesis,
            node: clusterNodeOf(read),
          }),
          ...modules,
        ],
        providers: users
          ? [{ provide: ONCE_AUTHENTICATOR, useValue: new StaticAuthenticator(users) }]
          : [],
      };
    }
  }

  const app = await NestFactory.createMicroservice(TestServiceModule.register(), {
    strategy: new OnceServer({
      port: read('port') ?? 0,
      host: read('host') ?? settingDefault('host'),
    }),
    logger: new ConsoleLogger({ colors: false }),
    abortOnError: false,
  });
  // The framework drains, snapshots and closes; exit 0 once it has.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  await app.listen();
  // A boot that fails (a journal the code cannot apply) ends the process, as
  // the reference service's does: a node that will never serve must not linger.
  app
    .get(OnceRuntime)
    .whenReady()
    .catch((error: unknown) => {
      process.stderr.write(`once test service: cannot serve: ${describe(error)}
`);
      process.exit(1);
    });
}

/** An error's message, with its code when the message does not name it. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return redactSecrets(String(error));
  const { code } = error as { code?: unknown };
  return redactSecrets(
    typeof code === 'string' && !error.message.includes(code)
      ? `${error.message} (${code})`
      : error.message,
  );
}

/**
 * Cluster mode, as the reference service reads it: on when ONCE_NATS_SERVERS
 * is set (with ONCE_NODE_ID, ONCE_ADVERTISE, ONCE_CLUSTER_NAME,
 * ONCE_CLUSTER_REPLICAS, ONCE_CLUSTER_KEY_FILE, ONCE_CLUSTER_UNSIGNED_THROUGH_SEQ, and the
 * ONCE_NATS_* authentication and TLS settings): the node factory of
 * `@once/cluster`, loaded only then. `@once/cluster` is an optional peer
 * dependency: a single-node team's install has no NATS client.
 */
function clusterNodeOf(
  read: <N extends SettingName>(name: N) => SettingValue<N> | undefined,
): OnceModuleOptions['node'] {
  const servers = read('natsServers');
  const nodeId = read('nodeId');
  if (servers === undefined || nodeId === undefined) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded in cluster mode only
  const { clusterNode, readNatsSecurity } = require('@once/cluster') as typeof ClusterPackage;
  return clusterNode({
    natsServers: servers.split(','),
    natsConnectTimeoutMs: read('natsConnectTimeoutMs'),
    natsSecurity: readNatsSecurity({
      natsUser: read('natsUser'),
      natsPassword: read('natsPassword'),
      natsPasswordFile: read('natsPasswordFile'),
      natsToken: read('natsToken'),
      natsTokenFile: read('natsTokenFile'),
      natsNkeySeedFile: read('natsNkeySeedFile'),
      natsCredsFile: read('natsCredsFile'),
      natsTlsCaFile: read('natsTlsCaFile'),
      natsTlsCertFile: read('natsTlsCertFile'),
      natsTlsKeyFile: read('natsTlsKeyFile'),
      natsTlsServerName: read('natsTlsServerName'),
    }),
    nodeId,
    clusterName: read('clusterName') ?? settingDefault('clusterName'),
    clusterKeyFile: read('clusterKeyFile'),
    unsignedThroughSeq: read('clusterUnsignedThroughSeq'),
    advertise: read('advertise') ?? null,
    replicas: read('clusterReplicas'),
  });
}

/** A comma-separated setting's items (see the settings table's `retiredStates`). */
function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `once test service: cannot start: ${redactSecrets(error instanceof Error ? error.message : String(error))}\n`,
  );
  process.exit(1);
});
