import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RawClient, ServiceProcess, TcpProxy, bodyJson } from '@once/testing';
import { Chaos, type SoakChaos } from './chaos';
import { stopAndVerify } from './replay-check';
import { type SeededRandom } from './seeded-random';
import { type ServiceBuild } from './service-build';
import { type SoakOptions } from './soak-options';
import { type ServiceAddress, type SoakTarget, type TargetVerification } from './soak-target';

/** The settings every process of the run gets, and how long a (re)start may take. */
export interface TargetSettings {
  readonly env: Readonly<Record<string, string>>;
  readonly readyTimeoutMs: number;
}

/**
 * The reference service as one process on `data/` of the run directory,
 * with one TCP proxy in front: the chaos SIGKILLs and restarts it, and cuts
 * and stalls the proxy.
 */
export class SingleTarget implements SoakTarget {
  private constructor(
    private readonly service: ServiceProcess,
    private readonly proxy: TcpProxy,
    private readonly build: ServiceBuild,
    private readonly workDir: string,
  ) {}

  static async start(
    workDir: string,
    build: ServiceBuild,
    settings: TargetSettings,
  ): Promise<SingleTarget> {
    const service = await ServiceProcess.start({
      entry: build.main,
      dataDir: join(workDir, 'data'),
      env: settings.env,
      readyTimeoutMs: settings.readyTimeoutMs,
    });
    try {
      const proxy = await TcpProxy.start({ targetPort: service.port });
      return new SingleTarget(service, proxy, build, workDir);
    } catch (error) {
      await service.crash();
      throw error;
    }
  }

  get loadAddress(): ServiceAddress {
    return { port: this.proxy.port };
  }

  get directAddress(): ServiceAddress {
    return { port: this.service.port };
  }

  get dataDirs(): readonly string[] {
    return [this.service.dataDir];
  }

  serviceLogs(): string {
    return this.service.logs;
  }

  startChaos(random: SeededRandom, options: SoakOptions): SoakChaos {
    return new Chaos(this.service, this.proxy, random, options.killEveryMs, options.faultEveryMs);
  }

  /** The node's highest committed op, by PING. */
  async settle(): Promise<number> {
    const client = await RawClient.connect(this.service.port);
    try {
      return (bodyJson(await client.ping()) as { commit: number }).commit;
    } finally {
      client.destroy();
    }
  }

  async stopAndVerify(committedOp: number): Promise<TargetVerification> {
    const replay = await stopAndVerify(this.service, this.build, committedOp);
    return { replays: [{ node: 'service', ...replay }] };
  }

  async writeLogs(): Promise<void> {
    await writeFile(join(this.workDir, 'service.log'), this.service.logs);
  }

  async close(): Promise<void> {
    await this.proxy.close();
    await this.service.crash();
  }
}
