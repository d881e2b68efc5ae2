import { join } from 'node:path';
import { RawClient, ServiceProcess, TcpProxy, bodyJson } from '@once/testing';
import { Chaos, type SoakChaos } from './chaos';
import { type SeededRandom } from './seeded-random';
import { type SoakOptions } from './soak-options';
import {
  type ServiceAddress,
  type SoakTarget,
  type TargetRun,
  type TargetVerification,
} from './soak-target';
import { stopAndVerifyInOrder, writeLogFiles } from './target-processes';

/**
 * The reference service as one process on `data/` of the run directory,
 * with one TCP proxy in front: the chaos SIGKILLs and restarts it, and cuts
 * and stalls the proxy.
 */
export class SingleTarget implements SoakTarget {
  private constructor(
    private readonly service: ServiceProcess,
    private readonly proxy: TcpProxy,
    private readonly run: TargetRun,
  ) {}

  static async start(run: TargetRun): Promise<SingleTarget> {
    const service = await ServiceProcess.start({
      entry: run.build.main,
      dataDir: join(run.workDir, 'data'),
      env: run.settings.env,
      readyTimeoutMs: run.settings.readyTimeoutMs,
    });
    try {
      const proxy = await TcpProxy.start({ targetPort: service.port });
      return new SingleTarget(service, proxy, run);
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
    const services = [{ name: 'service', service: this.service }];
    return { replays: await stopAndVerifyInOrder(services, this.run.build, committedOp) };
  }

  async writeLogs(): Promise<void> {
    await writeLogFiles(this.run.workDir, [['service', this.service.logs]]);
  }

  async close(): Promise<void> {
    await this.proxy.close();
    await this.service.crash();
  }
}
