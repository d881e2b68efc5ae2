import 'reflect-metadata';
import { ConsoleLogger, type DynamicModule, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ONCE_AUTHENTICATOR, OnceModule } from '@once/framework';
import { OnceServer } from '@once/gateway';
import { StaticAuthenticator } from './static-authenticator';

/**
 * The entry of a service assembled from a team's modules (see
 * `ServiceProcess.start({ modules })`). Reads:
 * - ONCE_TEST_MODULES: JSON `[{ "path": "/abs/file.ts", "export": "LedgerModule" }]`;
 * - ONCE_TEST_USERS: JSON `{ "alice": "pw" }` for a static authenticator (ids 1, 2, …),
 *   unless one of the modules provides ONCE_AUTHENTICATOR;
 * - ONCE_DATA_DIR, ONCE_PORT, ONCE_RING, ONCE_CLIENTS_MAX, ONCE_SESSION_TTL (ms), ONCE_SNAPSHOT_EVERY.
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
  const users = env.ONCE_TEST_USERS
    ? (JSON.parse(env.ONCE_TEST_USERS) as Record<string, string>)
    : undefined;
  const number = (name: string): number | undefined =>
    env[name] === undefined ? undefined : Number(env[name]);

  @Module({})
  class TestServiceModule {
    static register(): DynamicModule {
      return {
        module: TestServiceModule,
        imports: [
          OnceModule.forRoot({
            dataDir: env.ONCE_DATA_DIR ?? './data',
            ring: number('ONCE_RING'),
            clientsMax: number('ONCE_CLIENTS_MAX'),
            sessionTtlMs: number('ONCE_SESSION_TTL'),
            snapshotEveryOps: number('ONCE_SNAPSHOT_EVERY'),
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
      port: number('ONCE_PORT') ?? 0,
      host: env.ONCE_HOST ?? '127.0.0.1',
    }),
    logger: new ConsoleLogger({ colors: false }),
    abortOnError: false,
  });
  const stop = () => void app.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await app.listen();
}

main().catch((error: unknown) => {
  process.stderr.write(
    `once test service: cannot start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
