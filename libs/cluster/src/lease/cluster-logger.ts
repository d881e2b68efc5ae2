/**
 * The lines the lease and the heartbeats log: why a node lost the lease, a
 * write that failed. NestJS's `Logger` satisfies it; the cluster package
 * stays free of NestJS.
 */
export interface ClusterLogger {
  log(message: string): void;
  warn(message: string): void;
}

export const SILENT_CLUSTER_LOGGER: ClusterLogger = {
  log: () => undefined,
  warn: () => undefined,
};

/**
 * A node's lines, each starting with its id. Requests that fail round after
 * round (NATS unreachable) are logged when the failures begin and when they
 * end, not once a round while they last.
 */
export class NodeLog {
  private troubled = false;

  constructor(
    private readonly logger: ClusterLogger,
    private readonly nodeId: string,
    /** What answers again when the failures end: "the lease key". */
    private readonly subject: string,
  ) {}

  info(message: string): void {
    this.logger.log(`${this.nodeId}: ${message}`);
  }

  warn(message: string): void {
    this.logger.warn(`${this.nodeId}: ${message}`);
  }

  /** A failed request: warned about unless the previous one failed too. */
  trouble(message: string): void {
    if (!this.troubled) this.warn(message);
    this.troubled = true;
  }

  /** A request succeeded: says so when it ends a run of failures. */
  untroubled(): void {
    if (this.troubled) this.info(`${this.subject} answers again`);
    this.troubled = false;
  }
}
