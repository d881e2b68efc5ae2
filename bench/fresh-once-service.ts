import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchContext } from './bench-context';
import { OnceService } from './once-service';

/**
 * Runs `use` against a once service of its own, started as the once figure's
 * is (a fresh data directory `<workDir>/<name>/data`, ONCE_SNAPSHOT_EVERY_OPS=0,
 * defaults otherwise) with `env` on top: the setting whose cost an on/off
 * ratio measures. The service is SIGKILLed and its directory removed
 * afterwards, failed or not.
 */
export async function withFreshOnceService<T>(
  context: BenchContext,
  name: string,
  env: Readonly<Record<string, string>>,
  use: (service: OnceService) => Promise<T>,
): Promise<T> {
  const root = join(context.workDir, name);
  const service = await OnceService.start({
    build: context.build,
    dataDir: join(root, 'data'),
    adminPassword: context.adminPassword,
    snapshotEveryOps: 0,
    env,
  });
  try {
    return await use(service);
  } finally {
    await service.crash();
    await rm(root, { recursive: true, force: true });
  }
}
