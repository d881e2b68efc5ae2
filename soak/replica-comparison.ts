import { createHash } from 'node:crypto';
import { JournalStore } from '@once/journal/internal';

/** The newest snapshot found in one node's data directory. */
export interface NodeSnapshot {
  readonly node: string;
  /** Its op; undefined when the directory holds none. */
  readonly op: number | undefined;
  /** Its payload's length and SHA-256 (hex), to tell snapshots apart in the report. */
  readonly bytes: number | undefined;
  readonly sha256: string | undefined;
  /** Why it could not be read (the directory, or the snapshot's own checksum). */
  readonly error?: string;
}

/** Whether every node of a cluster reached the same state. */
export interface ClusterConvergence {
  /** Each node's commit op (PING) when the run stopped waiting for them to agree, in node order. */
  readonly commits: readonly (number | null)[];
  /** Every node answered the same commit op, that of the leader, within the bound. */
  readonly converged: boolean;
  /** Each node's newest snapshot after its graceful stop, in node order. */
  readonly snapshots: readonly NodeSnapshot[];
  /**
   * The nodes converged, and every node's newest snapshot is at that commit
   * op and equal to the others byte for byte: the same entries applied in
   * the same order gave the same state everywhere.
   */
  readonly identical: boolean;
}

/** A node's newest snapshot, with its payload for the comparison. */
export interface SnapshotRead {
  readonly summary: NodeSnapshot;
  readonly payload: Buffer | undefined;
}

/**
 * Reads the newest snapshot of `dataDir` (a stopped node's: the directory is
 * locked while the node runs) with the journal's own reader, which checks
 * the snapshot's checksum.
 */
export async function readNewestSnapshot(node: string, dataDir: string): Promise<SnapshotRead> {
  let store: JournalStore | undefined;
  try {
    store = await JournalStore.open(dataDir);
    const [newest] = await store.listSnapshots();
    if (newest === undefined) return { summary: blank(node), payload: undefined };
    if ('error' in newest) {
      return {
        summary: { ...blank(node), op: newest.op, error: newest.error },
        payload: undefined,
      };
    }
    const payload = Buffer.from(newest.payload);
    return {
      summary: {
        node,
        op: newest.op,
        bytes: payload.length,
        sha256: createHash('sha256').update(payload).digest('hex'),
      },
      payload,
    };
  } catch (error) {
    return {
      summary: { ...blank(node), error: error instanceof Error ? error.message : String(error) },
      payload: undefined,
    };
  } finally {
    await store?.close();
  }
}

/** Judges whether the replicas agree: see ClusterConvergence.identical. */
export function compareReplicas(
  commits: readonly (number | null)[],
  converged: boolean,
  reads: readonly SnapshotRead[],
): ClusterConvergence {
  const [first] = reads;
  const commitOp = commits[0];
  const identical =
    converged &&
    first?.payload !== undefined &&
    reads.every(
      ({ summary, payload }) =>
        summary.op === commitOp && payload !== undefined && payload.equals(first.payload!),
    );
  return { commits, converged, snapshots: reads.map((read) => read.summary), identical };
}

function blank(node: string): NodeSnapshot {
  return { node, op: undefined, bytes: undefined, sha256: undefined };
}
