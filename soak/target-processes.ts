import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ServiceProcess } from '@once/testing';
import { stopAndVerify } from './replay-check';
import { type ServiceBuild } from './service-build';
import { type NodeReplay } from './soak-target';

/** One service process of a target, by the name its replay and its log file carry. */
export interface NamedService {
  /** `service` for the one process, `node1`… in a cluster. */
  readonly name: string;
  readonly service: ServiceProcess;
}

/**
 * Stops each service gracefully and replays its journal from op 1 (see
 * replay-check), one after the other in the order given: the order matters in
 * a cluster, where the leader stopped first would hand a follower the lease.
 * The single-node and the cluster targets end a run the same way but for
 * that order.
 */
export async function stopAndVerifyInOrder(
  services: readonly NamedService[],
  build: ServiceBuild,
  committedOp: number,
): Promise<NodeReplay[]> {
  const replays: NodeReplay[] = [];
  for (const { name, service } of services) {
    replays.push({ node: name, ...(await stopAndVerify(service, build, committedOp)) });
  }
  return replays;
}

/**
 * Writes each process's output to `<name>.log` in the run directory, beside
 * the data that a failed run keeps, one file after the other.
 */
export async function writeLogFiles(
  workDir: string,
  logs: readonly (readonly [name: string, output: string])[],
): Promise<void> {
  for (const [name, output] of logs) {
    await writeFile(join(workDir, `${name}.log`), output);
  }
}
